package io.picomq.architecture;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Every production package states its one job in a {@code package-info.java}, and packages are
 * named by concern, never by kind (STYLE.md: no {@code util}, {@code helpers}, {@code impl}).
 */
class PackageLayoutTest {

  private static final Path ROOT = Path.of(System.getProperty("picomq.root", ".."));
  private static final Set<String> KIND_NAMES =
      Set.of("util", "utils", "helper", "helpers", "impl", "common", "misc", "base");

  private static List<Path> productionPackages() throws IOException {
    try (Stream<Path> tree = Files.walk(ROOT, 12)) {
      return tree.filter(Files::isDirectory)
          .filter(dir -> dir.toString().replace('\\', '/').contains("/src/main/java/"))
          .filter(dir -> !dir.toString().contains("/node_modules/"))
          .filter(PackageLayoutTest::hasJavaSources)
          .toList();
    }
  }

  private static boolean hasJavaSources(Path dir) {
    try (Stream<Path> files = Files.list(dir)) {
      return files.anyMatch(f -> f.toString().endsWith(".java"));
    } catch (IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  @Test
  void everyPackageSaysWhatItIsFor() throws IOException {
    List<Path> packages = productionPackages();
    assertThat(packages).isNotEmpty();
    assertThat(packages)
        .allSatisfy(dir -> assertThat(dir.resolve("package-info.java")).as("%s", dir).exists());
  }

  @Test
  void packagesAreNamedByConcern() throws IOException {
    assertThat(productionPackages())
        .allSatisfy(
            dir ->
                assertThat(KIND_NAMES)
                    .as("package name of %s", dir)
                    .doesNotContain(dir.getFileName().toString()));
  }
}
