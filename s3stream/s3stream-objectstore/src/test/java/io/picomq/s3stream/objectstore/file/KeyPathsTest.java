package io.picomq.s3stream.objectstore.file;

import static org.assertj.core.api.Assertions.assertThat;

import io.picomq.s3stream.objectstore.ObjectKeys;
import io.picomq.s3stream.objectstore.ObjectStoreException;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Optional;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Assume;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import org.junit.jupiter.api.Test;

class KeyPathsTest {

  @Property(tries = 2000)
  void everyKeyMapsToSafeNamesThatDecodeBackToIt(@ForAll("keys") String key) {
    try {
      ObjectKeys.check(key);
    } catch (ObjectStoreException e) {
      Assume.that(false);
    }
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

  @Provide
  Arbitrary<String> keys() {
    Arbitrary<String> parts =
        Arbitraries.oneOf(
            Arbitraries.strings().all().ofMaxLength(40),
            Arbitraries.of("", ".", "..", "/", "//", "\\", "\0", "A", "%", "~", "+", ".put-x"),
            Arbitraries.strings().withChars('.', '/', 'a').ofMaxLength(8),
            Arbitraries.strings().withChars('x', '.').ofMinLength(200).ofMaxLength(600));
    return parts.list().ofMinSize(1).ofMaxSize(6).map(l -> String.join("", l));
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
  void namesTheStoreNeverWritesDoNotDecode() {
    for (String name : List.of("", ".put-1", "UPPER", "bad%zz", "%4", "sp ace", "a~")) {
      assertThat(KeyPaths.decodeFile(name)).as(name).isEmpty();
    }
    for (String name : List.of("plain", ".x~", "A~", "~x")) {
      assertThat(KeyPaths.decodeDirectory(name)).as(name).isEmpty();
    }
  }
}
