package io.picomq.architecture;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static org.assertj.core.api.Assertions.assertThat;

import com.tngtech.archunit.base.DescribedPredicate;
import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.lang.ArchRule;
import com.tngtech.archunit.lang.EvaluationResult;
import io.picomq.architecture.fixture.ReachesIntoTheEngine;
import org.junit.jupiter.api.Test;

/**
 * The host ({@code io.picomq} outside {@code io.picomq.s3stream}) talks to the engine only through
 * its facade: the contracts in {@code io.picomq.s3stream.api}, the builder in the root package
 * {@code io.picomq.s3stream}, and the clock, timers and backoff in {@code io.picomq.s3stream.time}.
 * The engine never depends on the host.
 */
class EngineBoundaryTest {

  private static final DescribedPredicate<JavaClass> ENGINE_INTERNALS =
      DescribedPredicate.describe(
          "are engine internals (io.picomq.s3stream.. other than the facade packages"
              + " io.picomq.s3stream, io.picomq.s3stream.api.. and io.picomq.s3stream.time)",
          c -> isEngine(c) && !isFacade(c));

  private static final DescribedPredicate<JavaClass> HOST =
      DescribedPredicate.describe(
          "are host classes (io.picomq.. outside io.picomq.s3stream..)",
          c -> c.getPackageName().startsWith("io.picomq.") && !isEngine(c));

  static final ArchRule HOST_USES_ONLY_THE_FACADE =
      noClasses()
          .that(HOST)
          .should()
          .dependOnClassesThat(ENGINE_INTERNALS)
          .because("the host talks to the engine only through its facade (PRODUCT.md section 2)");

  static final ArchRule ENGINE_DOES_NOT_KNOW_THE_HOST =
      noClasses()
          .that()
          .resideInAPackage("io.picomq.s3stream..")
          .should()
          .dependOnClassesThat(HOST)
          .because("the engine is a self-contained library");

  private static final JavaClasses PRODUCTION =
      new ClassFileImporter()
          .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
          .importPackages("io.picomq");

  private static boolean isFacade(JavaClass c) {
    String name = c.getPackageName();
    return name.equals("io.picomq.s3stream")
        || name.equals("io.picomq.s3stream.api")
        || name.startsWith("io.picomq.s3stream.api.")
        || name.equals("io.picomq.s3stream.time");
  }

  private static boolean isEngine(JavaClass c) {
    return c.getPackageName().equals("io.picomq.s3stream")
        || c.getPackageName().startsWith("io.picomq.s3stream.");
  }

  @Test
  void hostUsesOnlyTheFacade() {
    HOST_USES_ONLY_THE_FACADE.check(PRODUCTION);
  }

  @Test
  void engineDoesNotDependOnTheHost() {
    ENGINE_DOES_NOT_KNOW_THE_HOST.check(PRODUCTION);
  }

  @Test
  void theBoundaryRuleRejectsHostCodeThatReachesIntoTheEngine() {
    EvaluationResult result =
        HOST_USES_ONLY_THE_FACADE.evaluate(
            new ClassFileImporter().importClasses(ReachesIntoTheEngine.class));
    assertThat(result.hasViolation()).isTrue();
    assertThat(result.getFailureReport().getDetails())
        .anySatisfy(line -> assertThat(line).contains("ObjectStore"));
  }

  @Test
  void bothSidesOfTheBoundaryAreImported() {
    assertThat(PRODUCTION.containPackage("io.picomq.cli")).isTrue();
    assertThat(PRODUCTION.containPackage("io.picomq.s3stream.objectstore")).isTrue();
    assertThat(PRODUCTION.containPackage("io.picomq.s3stream.time")).isTrue();
  }
}
