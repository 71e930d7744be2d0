package io.picomq.s3stream.walobject;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.Objects;
import java.util.Optional;

/**
 * Builds the keys of a node's WAL objects and parses them back.
 *
 * <p>Node prefix: {@code upper(md5hex(nodeId)) + "/" + "_kafka_" + clusterId + "/" + nodeId [+ "_"
 * + type] + "/"}; the hash spreads nodes over the key space of the bucket. {@code "_kafka_"} is the
 * upstream's fixed namespace; we keep it so both read each other's WALs. Object keys: {@code
 * {prefix}{epoch}/wal/{start}} (v0) and {@code {prefix}{epoch}/wal/{start}-{end}} (v1).
 *
 * <p>For node 0 of cluster {@code cluster-a}: prefix {@code
 * CFCD208495D565EF66E7DFF9F98764DA/_kafka_cluster-a/0/}, v1 key {@code
 * CFCD208495D565EF66E7DFF9F98764DA/_kafka_cluster-a/0/3/wal/8192-12288}.
 */
public final class WalObjectKeys {

  /** The namespace segment in front of the cluster id, fixed by the upstream. */
  public static final String NAMESPACE = "_kafka_";

  private static final String WAL_SEGMENT = "/wal/";
  private static final char OFFSET_DELIMITER = '-';

  private WalObjectKeys() {}

  /** The prefix under which node {@code nodeId} of {@code clusterId} writes its WAL. */
  public static String nodePrefix(String clusterId, int nodeId) {
    Objects.requireNonNull(clusterId, "clusterId");
    return md5UpperHex(Integer.toString(nodeId)) + "/" + NAMESPACE + clusterId + "/" + nodeId + "/";
  }

  /**
   * The prefix of a node's WAL of a given {@code type}, for a node that keeps more than one WAL.
   *
   * @throws IllegalArgumentException if {@code type} is blank (use {@link #nodePrefix(String,
   *     int)}) or contains {@code '/'}
   */
  public static String nodePrefix(String clusterId, int nodeId, String type) {
    if (type.isBlank() || type.indexOf('/') >= 0) {
      throw new IllegalArgumentException("WAL type must be non-blank without '/': '" + type + "'");
    }
    String plain = nodePrefix(clusterId, nodeId);
    return plain.substring(0, plain.length() - 1) + "_" + type + "/";
  }

  /** The v0 key of an object starting at {@code startOffset}. */
  public static String keyV0(String nodePrefix, long epoch, long startOffset) {
    return nodePrefix + epoch + WAL_SEGMENT + startOffset;
  }

  /** The v1 key of an object spanning {@code [startOffset, endOffset)}. */
  public static String keyV1(String nodePrefix, long epoch, long startOffset, long endOffset) {
    return nodePrefix + epoch + WAL_SEGMENT + startOffset + OFFSET_DELIMITER + endOffset;
  }

  /**
   * Parses a key listed under {@code nodePrefix}. Only keys this class could have written are
   * accepted: the prefix, a canonical non-negative decimal epoch, {@code /wal/}, and a canonical
   * non-negative start (and, for v1, an end not below it). Anything else is foreign and yields
   * empty, never an exception, so a stray object under the prefix cannot stop recovery.
   */
  public static Optional<WalObjectKey> parse(String nodePrefix, String key) {
    if (!key.startsWith(nodePrefix)) {
      return Optional.empty();
    }
    String rest = key.substring(nodePrefix.length());
    int wal = rest.indexOf(WAL_SEGMENT);
    if (wal < 0) {
      return Optional.empty();
    }
    Optional<Long> epoch = canonicalLong(rest.substring(0, wal));
    String offsets = rest.substring(wal + WAL_SEGMENT.length());
    if (epoch.isEmpty()) {
      return Optional.empty();
    }
    int dash = offsets.indexOf(OFFSET_DELIMITER);
    if (dash < 0) {
      return canonicalLong(offsets).map(start -> new WalObjectKey.V0(key, epoch.get(), start));
    }
    Optional<Long> start = canonicalLong(offsets.substring(0, dash));
    Optional<Long> end = canonicalLong(offsets.substring(dash + 1));
    if (start.isEmpty() || end.isEmpty() || end.get() < start.get()) {
      return Optional.empty();
    }
    return Optional.of(new WalObjectKey.V1(key, epoch.get(), start.get(), end.get()));
  }

  // Canonical means what Long.toString writes for a non-negative value: digits only, no sign, no
  // leading zero. Anything else was not written by us or the upstream, so it is foreign.
  private static Optional<Long> canonicalLong(String text) {
    if (text.isEmpty() || text.length() > 19) {
      return Optional.empty();
    }
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      if (c < '0' || c > '9') {
        return Optional.empty();
      }
    }
    if (text.length() > 1 && text.charAt(0) == '0') {
      return Optional.empty();
    }
    try {
      return Optional.of(Long.parseLong(text));
    } catch (NumberFormatException overflow) {
      return Optional.empty();
    }
  }

  private static String md5UpperHex(String text) {
    try {
      byte[] digest =
          MessageDigest.getInstance("MD5").digest(text.getBytes(StandardCharsets.UTF_8));
      return HexFormat.of().withUpperCase().formatHex(digest);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("every Java platform must provide MD5", e);
    }
  }
}
