package io.picomq.s3stream.objectstore.file;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;

/**
 * The reversible mapping from object keys to file names below the store's root.
 *
 * <p>A key is split at {@code '/'} into segments. Each segment is written as UTF-8 in which every
 * byte outside {@code [a-z0-9._-]} is escaped as {@code %HH} (two upper-case hex digits), so the
 * names we produce hold no separator, no backslash, no NUL, no upper-case letter (case-insensitive
 * file systems would merge {@code A} and {@code a}) and cannot be {@code .} or {@code ..}. A name
 * never starts with {@code '.'} (a leading dot is escaped), which leaves names starting with a dot
 * for temporary files. The empty segment (as in {@code "a//b"} or {@code "a/"}) is written {@code
 * %}.
 *
 * <p>A key may be both an object and the prefix of another ({@code "a"} and {@code "a/b"}), so
 * files and directories get different names: the last segment is a file named by its encoding;
 * every earlier segment is a directory named by its encoding plus {@code '~'}. Encoded segments
 * longer than {@value #MAX_NAME_CHARS} characters (file systems stop at 255 bytes) are cut, between
 * escapes, into pieces; every piece but the last becomes a directory named by the piece plus {@code
 * '+'}. Neither suffix can occur inside an encoding, so every path decodes one way only.
 *
 * <pre>
 *   "logs/2024/a.bin"  -> logs~ / 2024~ / a.bin
 *   "../etc/passwd"    -> %2E.~ / etc~ / passwd
 *   "A\0b"             -> %41%00b
 *   "x/"               -> x~ / %
 *   600 x 'a'          -> aaa..(240)+ / aaa..(240)+ / aaa..(120)
 * </pre>
 */
final class KeyPaths {

  /** The longest name we produce, suffix included, well below the usual 255-byte limit. */
  static final int MAX_NAME_CHARS = 241;

  private static final char SEGMENT_DIRECTORY = '~';
  private static final char CONTINUATION_DIRECTORY = '+';
  private static final String EMPTY_SEGMENT = "%";
  private static final char[] HEX = "0123456789ABCDEF".toCharArray();

  private KeyPaths() {}

  /** The path components, relative to the root, of the file that holds {@code key}. */
  static List<String> components(String key) {
    List<String> names = new ArrayList<>();
    String[] segments = key.split("/", -1);
    for (int s = 0; s < segments.length; s++) {
      List<String> pieces = pieces(segments[s]);
      for (int p = 0; p < pieces.size(); p++) {
        boolean lastPiece = p == pieces.size() - 1;
        if (!lastPiece) {
          names.add(pieces.get(p) + CONTINUATION_DIRECTORY);
        } else if (s < segments.length - 1) {
          names.add(pieces.get(p) + SEGMENT_DIRECTORY);
        } else {
          names.add(pieces.get(p));
        }
      }
    }
    return names;
  }

  /**
   * Where a listing of {@code prefix} starts: the directories of the prefix's complete segments
   * (everything up to its last {@code '/'}), which hold every key that starts with it, and the key
   * bytes those directories stand for. A listing that walked from the root would read every
   * top-level directory of the store for each fence check of the WAL.
   */
  static ListingStart listingStart(String prefix) {
    String fixed = prefix.substring(0, prefix.lastIndexOf('/') + 1);
    if (fixed.isEmpty()) {
      return new ListingStart(List.of(), "");
    }
    List<String> names = components(fixed); // ends with the empty segment's file name
    return new ListingStart(List.copyOf(names.subList(0, names.size() - 1)), fixed);
  }

  /** The directories a listing starts in, relative to the root, and the key they stand for. */
  record ListingStart(List<String> directories, String keyPrefix) {}

  /**
   * The key bytes a directory name stands for: its piece, plus {@code '/'} when it ends a segment.
   * Empty when the name is not one we produce.
   */
  static Optional<byte[]> decodeDirectory(String name) {
    if (name.length() < 2) {
      return Optional.empty();
    }
    char suffix = name.charAt(name.length() - 1);
    if (suffix != SEGMENT_DIRECTORY && suffix != CONTINUATION_DIRECTORY) {
      return Optional.empty();
    }
    Optional<byte[]> piece = decodePiece(name.substring(0, name.length() - 1));
    if (suffix == CONTINUATION_DIRECTORY || piece.isEmpty()) {
      return piece;
    }
    byte[] bytes = piece.get();
    byte[] withSlash = Arrays.copyOf(bytes, bytes.length + 1);
    withSlash[bytes.length] = '/';
    return Optional.of(withSlash);
  }

  /** The key bytes a file name stands for; empty when the name is not one we produce. */
  static Optional<byte[]> decodeFile(String name) {
    return decodePiece(name);
  }

  private static List<String> pieces(String segment) {
    if (segment.isEmpty()) {
      return List.of(EMPTY_SEGMENT);
    }
    List<String> pieces = new ArrayList<>();
    StringBuilder piece = new StringBuilder();
    for (byte b : segment.getBytes(StandardCharsets.UTF_8)) {
      // Each piece leaves room for its one-character suffix and never splits an escape.
      boolean raw = isRaw(b) && !(b == '.' && piece.isEmpty());
      int width = raw ? 1 : 3;
      if (piece.length() + width > MAX_NAME_CHARS - 1) {
        pieces.add(piece.toString());
        piece.setLength(0);
        raw = raw && b != '.';
      }
      if (raw) {
        piece.append((char) b);
      } else {
        piece.append('%').append(HEX[(b >> 4) & 0xF]).append(HEX[b & 0xF]);
      }
    }
    pieces.add(piece.toString());
    return pieces;
  }

  private static Optional<byte[]> decodePiece(String piece) {
    if (piece.equals(EMPTY_SEGMENT)) {
      return Optional.of(new byte[0]);
    }
    if (piece.isEmpty() || piece.charAt(0) == '.') {
      return Optional.empty();
    }
    ByteArrayOutputStream bytes = new ByteArrayOutputStream(piece.length());
    for (int i = 0; i < piece.length(); i++) {
      char c = piece.charAt(i);
      if (c == '%') {
        int hi = i + 1 < piece.length() ? hexValue(piece.charAt(i + 1)) : -1;
        int lo = i + 2 < piece.length() ? hexValue(piece.charAt(i + 2)) : -1;
        if (hi < 0 || lo < 0) {
          return Optional.empty();
        }
        bytes.write(hi << 4 | lo);
        i += 2;
      } else if (c < 0x80 && isRaw((byte) c)) {
        bytes.write(c);
      } else {
        return Optional.empty();
      }
    }
    return Optional.of(bytes.toByteArray());
  }

  private static boolean isRaw(byte b) {
    return (b >= 'a' && b <= 'z') || (b >= '0' && b <= '9') || b == '.' || b == '_' || b == '-';
  }

  private static int hexValue(char c) {
    if (c >= '0' && c <= '9') {
      return c - '0';
    }
    if (c >= 'A' && c <= 'F') {
      return c - 'A' + 10;
    }
    return -1;
  }
}
