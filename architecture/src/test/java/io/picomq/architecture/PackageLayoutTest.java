package io.picomq.architecture;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Every production package states its one job in a {@code package-info.java}, and packages are
 * named by concern, never by kind (STYLE.md: no {@code util}, {@code helpers}, {@code impl}), and a
 * class name means one thing across the codebase.
 */
class PackageLayoutTest {

  private static final Path ROOT = Path.of(System.getProperty("picomq.root", ".."));
  private static final Set<String> KIND_NAMES =
      Set.of("util", "utils", "helper", "helpers", "impl", "common", "misc", "base");

  /**
   * The one deliberate exception to unique class names: the two protocol frontends mirror each
   * other, one class per operation with the same role in each.
   */
  private static final Set<String> MIRRORED_FRONTEND_CLASSES =
      Set.of("Answers", "Appends", "Creates", "Reads");

  private static final Set<String> MIRRORED_FRONTEND_PACKAGES =
      Set.of("io/picomq/frontend/ds", "io/picomq/frontend/pico");

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

  /**
   * No two production classes share a simple name (so no code needs a fully qualified name to tell
   * them apart), except the mirrored frontend classes, and those only in the two frontends.
   */
  @Test
  void everyClassNameMeansOneThing() throws IOException {
    Map<String, Set<String>> packagesByName = new TreeMap<>();
    for (Path dir : productionPackages()) {
      String pkg = dir.toString().replace('\\', '/').replaceFirst(".*/src/main/java/", "");
      try (Stream<Path> files = Files.list(dir)) {
        files
            .map(f -> f.getFileName().toString())
            .filter(name -> name.endsWith(".java") && !name.equals("package-info.java"))
            .forEach(
                name ->
                    packagesByName
                        .computeIfAbsent(name.substring(0, name.length() - 5), n -> new TreeSet<>())
                        .add(pkg));
      }
    }
    Map<String, Set<String>> shared =
        packagesByName.entrySet().stream()
            .filter(e -> e.getValue().size() > 1)
            .filter(
                e ->
                    !(MIRRORED_FRONTEND_CLASSES.contains(e.getKey())
                        && MIRRORED_FRONTEND_PACKAGES.containsAll(e.getValue())))
            .collect(Collectors.toMap(Map.Entry::getKey, Map.Entry::getValue));
    assertThat(packagesByName).containsKeys("AppendOutcome", "StreamService", "Answers");
    assertThat(shared).as("class names used in more than one package").isEmpty();
  }
}
