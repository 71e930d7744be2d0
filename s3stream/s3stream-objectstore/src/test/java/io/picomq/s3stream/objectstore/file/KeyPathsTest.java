package io.picomq.s3stream.objectstore.file;

import static org.assertj.core.api.Assertions.assertThat;
import static org.quicktheories.QuickTheory.qt;
import static org.quicktheories.generators.SourceDSL.arbitrary;
import static org.quicktheories.generators.SourceDSL.integers;
import static org.quicktheories.generators.SourceDSL.lists;
import static org.quicktheories.generators.SourceDSL.strings;

import io.picomq.s3stream.objectstore.ObjectKeys;
import io.picomq.s3stream.objectstore.ObjectStoreException;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Optional;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.quicktheories.core.Gen;

/**
 * How keys become file names. A failing property is rerun from its seed: QuickTheories draws a
 * fresh seed for every property and ends a failure report with {@code Seed was N}; passing it back
 * as the system property {@code QT_SEED} replays the same examples, e.g. {@code mvn -pl
 * s3stream/s3stream-objectstore test
 * -Dtest='KeyPathsTest#everyKeyMapsToSafeNamesThatDecodeBackToIt' -DQT_SEED=N}. The same holds for
 * every property test in this module.
 */
class KeyPathsTest {

  @Test
  void everyKeyMapsToSafeNamesThatDecodeBackToIt() {
    // Nearly half of the drawn keys are not keys at all (empty, a lone surrogate, too many bytes);
    // the generous attempt budget keeps QuickTheories from giving up on a run of them.
    qt().withExamples(2000)
        .withGenerateAttempts(100)
        .forAll(keys().assuming(KeyPathsTest::isKey))
        .checkAssert(KeyPathsTest::mapsToSafeNamesThatDecodeBackToIt);
  }

  private static void mapsToSafeNamesThatDecodeBackToIt(String key) {
    List<String> names = KeyPaths.components(key);
    ByteArrayOutputStream decoded = new ByteArrayOutputStream();
    for (int i = 0; i < names.size(); i++) {
      String name = names.get(i);
      assertThat(name).isNotEmpty().doesNotStartWith(".").isNotEqualTo("..");
      assertThat(name.length()).isLessThanOrEqualTo(KeyPaths.MAX_NAME_CHARS);
      // Outside escapes only lower-case letters, digits, '.', '_', '-', and the '~', '+', '%'
      // markers.
      assertThat(name.replaceAll("%[0-9A-F]{2}", "")).as(name).matches("[a-z0-9._~+%-]*");
      Optional<byte[]> piece =
          i < names.size() - 1 ? KeyPaths.decodeDirectory(name) : KeyPaths.decodeFile(name);
      assertThat(piece).as("decodes: %s", name).isPresent();
      decoded.writeBytes(piece.get());
    }
    assertThat(decoded.toString(StandardCharsets.UTF_8)).isEqualTo(key);
  }

  private static boolean isKey(String candidate) {
    try {
      ObjectKeys.check(candidate);
      return true;
    } catch (ObjectStoreException e) {
      return false;
    }
  }

  /**
   * Keys glued from one to six parts: any UTF-16 text (lone surrogates included, which {@link
   * ObjectKeys#check} refuses), text beyond the BMP, the characters that matter to paths, and
   * segments long enough to be cut.
   */
  private static Gen<String> keys() {
    List<Gen<String>> kinds =
        List.of(
            strings().betweenCodePoints(0, Character.MAX_VALUE).ofLengthBetween(0, 40),
            strings().allPossible().ofLengthBetween(0, 40),
            arbitrary().pick("", ".", "..", "/", "//", "\\", "\0", "A", "%", "~", "+", ".put-x"),
            of("./a", 0, 8),
            of("x.", 200, 600));
    Gen<String> parts = integers().between(0, kinds.size() - 1).flatMap(kinds::get);
    return lists().of(parts).ofSizeBetween(1, 6).map(l -> String.join("", l));
  }

  /** Strings of {@code min} to {@code max} characters taken from {@code alphabet}. */
  private static Gen<String> of(String alphabet, int min, int max) {
    List<Character> chars = alphabet.chars().mapToObj(c -> (char) c).toList();
    return lists()
        .of(arbitrary().pick(chars))
        .ofSizeBetween(min, max)
        .map(l -> l.stream().map(String::valueOf).collect(Collectors.joining()));
  }

  @Test
  void upperCaseLettersAreEscapedSoCaseInsensitiveFileSystemsKeepKeysApart() {
    assertThat(KeyPaths.components("Key")).containsExactly("%4Bey");
    assertThat(KeyPaths.components("key")).containsExactly("key");
  }

  @Test
  void segmentsBecomeDirectoriesAndLongSegmentsAreCut() {
    assertThat(KeyPaths.components("a/b/c")).containsExactly("a~", "b~", "c");
    assertThat(KeyPaths.components("a/")).containsExactly("a~", "%");
    assertThat(KeyPaths.components("../x")).containsExactly("%2E.~", "x");
    List<String> cut = KeyPaths.components("z".repeat(600));
    assertThat(cut).containsExactly("z".repeat(240) + "+", "z".repeat(240) + "+", "z".repeat(120));
  }

  @Test
  void aListingStartsInTheDirectoriesOfThePrefixsCompleteSegments() {
    assertThat(KeyPaths.listingStart("")).isEqualTo(new KeyPaths.ListingStart(List.of(), ""));
    assertThat(KeyPaths.listingStart("wal")).isEqualTo(new KeyPaths.ListingStart(List.of(), ""));
    assertThat(KeyPaths.listingStart("c/n/fence/"))
        .isEqualTo(new KeyPaths.ListingStart(List.of("c~", "n~", "fence~"), "c/n/fence/"));
    assertThat(KeyPaths.listingStart("c/n/wal/00"))
        .isEqualTo(new KeyPaths.ListingStart(List.of("c~", "n~", "wal~"), "c/n/wal/"));
    assertThat(KeyPaths.listingStart("a//b"))
        .isEqualTo(new KeyPaths.ListingStart(List.of("a~", "%~"), "a//"));
    String z = "z".repeat(600);
    assertThat(KeyPaths.listingStart(z + "/k"))
        .isEqualTo(
            new KeyPaths.ListingStart(
                List.of("z".repeat(240) + "+", "z".repeat(240) + "+", "z".repeat(120) + "~"),
                z + "/"));
  }

  @Test
  void namesTheStoreNeverWritesDoNotDecode() {
    for (String name : List.of("", ".put-1", "UPPER", "bad%zz", "%4", "sp ace", "a~")) {
      assertThat(KeyPaths.decodeFile(name)).as(name).isEmpty();
    }
    for (String name : List.of("plain", ".x~", "A~", "~x")) {
      assertThat(KeyPaths.decodeDirectory(name)).as(name).isEmpty();
    }
  }
}
