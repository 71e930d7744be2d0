package io.picomq.s3stream.conformance;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;

/** The committed fixtures are exactly what today's encoders produce, file for file. */
class GoldenFixturesTest {

  private static final Path FIXTURES =
      Path.of(System.getProperty("picomq.root", "../.."), "s3stream", "conformance", "fixtures");

  @TestFactory
  Stream<DynamicTest> everyGeneratedFixtureMatchesTheCommittedFile() {
    return GoldenFixtures.all().stream()
        .map(
            fixture ->
                DynamicTest.dynamicTest(
                    fixture.path(),
                    () -> {
                      Path file = FIXTURES.resolve(fixture.path());
                      assertThat(file)
                          .as(
                              "committed fixture (run scripts/generate-fixtures.sh with a spec change)")
                          .exists();
                      assertThat(Files.readAllBytes(file))
                          .as("bytes of %s", fixture.path())
                          .isEqualTo(fixture.bytes());
                    }));
  }

  @Test
  void everyCommittedFileHasAGenerator() throws IOException {
    Set<String> generated =
        GoldenFixtures.all().stream().map(Fixture::path).collect(Collectors.toSet());
    List<String> committed;
    try (Stream<Path> files = Files.walk(FIXTURES)) {
      committed =
          files
              .filter(Files::isRegularFile)
              .map(f -> FIXTURES.relativize(f).toString().replace('\\', '/'))
              .filter(name -> !name.equals("README.md"))
              .toList();
    }
    assertThat(generated).containsAll(committed);
  }

  @Test
  void generationIsDeterministic() {
    List<Fixture> first = GoldenFixtures.all();
    List<Fixture> second = GoldenFixtures.all();
    assertThat(second).hasSameSizeAs(first);
    for (int i = 0; i < first.size(); i++) {
      assertThat(second.get(i).path()).isEqualTo(first.get(i).path());
      assertThat(second.get(i).bytes()).as(first.get(i).path()).isEqualTo(first.get(i).bytes());
    }
  }
}
