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
import io.picomq.architecture.fixture.AssemblesANode;
import io.picomq.cli.fixture.ReachesPastTheNode;
import io.picomq.frontend.Frontend;
import io.picomq.frontend.ListenerProtocol;
import io.picomq.frontend.fixture.ReachesIntoTheService;
import io.picomq.node.AccessSettings;
import io.picomq.node.ConnectionSettings;
import io.picomq.node.ExposureSettings;
import io.picomq.node.Node;
import io.picomq.node.NodeConfig;
import io.picomq.node.NodeSupervisor;
import io.picomq.node.Secret;
import io.picomq.node.TlsSettings;
import io.picomq.s3stream.S3Stream;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The host's layers, from the bottom: the stream contract ({@code io.picomq.stream}, the
 * picomq-stream-api module); the service implementation (picomq-server: {@code service}, {@code
 * metadata}, {@code routing}) and the frontends ({@code io.picomq.frontend}), side by side and
 * blind to each other; the node ({@code io.picomq.node}, picomq-node), the one place that puts them
 * together; and the CLI, which runs a node through the node's public API only.
 */
class HostLayersTest {

  /** The packages of picomq-server that implement the contract. */
  private static final String[] SERVICE_IMPLEMENTATION = {
    "io.picomq.server.service..", "io.picomq.server.metadata..", "io.picomq.server.routing.."
  };

  /** The node's public API: what {@code pico serve} and an embedder may use. */
  private static final Set<String> NODE_API =
      Set.of(
          Node.class.getName(),
          NodeConfig.class.getName(),
          NodeConfig.Builder.class.getName(),
          NodeSupervisor.class.getName(),
          ConnectionSettings.class.getName(),
          ExposureSettings.class.getName(),
          TlsSettings.class.getName(),
          AccessSettings.class.getName(),
          Secret.class.getName());

  static final ArchRule FRONTEND_SEES_ONLY_THE_STREAM_CONTRACT =
      noClasses()
          .that()
          .resideInAPackage("io.picomq.frontend..")
          .should()
          .dependOnClassesThat(
              hostOutside("io.picomq.frontend", "io.picomq.stream", "io.picomq.protocol"))
          .because(
              "a frontend speaks to the stream contract (picomq-stream-api) and the wire"
                  + " vocabulary (picomq-protocol) only; which service answers is the node's choice");

  static final ArchRule THE_SERVICE_KNOWS_NO_FRONTEND_OR_NODE =
      noClasses()
          .that()
          .resideInAnyPackage("io.picomq.stream..", "io.picomq.server..")
          .should()
          .dependOnClassesThat()
          .resideInAnyPackage("io.picomq.frontend..", "io.picomq.node..", "io.picomq.cli..")
          .because("the contract and the service sit below the frontends and the node");

  static final ArchRule ONLY_THE_NODE_USES_THE_SERVICE_IMPLEMENTATION =
      noClasses()
          .that(host())
          .and()
          .resideOutsideOfPackages("io.picomq.node..", "io.picomq.server..")
          .should()
          .dependOnClassesThat()
          .resideInAnyPackage(SERVICE_IMPLEMENTATION)
          .because("picomq-node is the one place a node is assembled");

  static final ArchRule ONLY_THE_NODE_STARTS_ENGINES_AND_LISTENERS =
      noClasses()
          .that(host())
          .and()
          .resideOutsideOfPackages("io.picomq.node..", "io.picomq.frontend")
          .should()
          .dependOnClassesThat()
          .belongToAnyOf(S3Stream.class, Frontend.class)
          .because("picomq-node is the one place a node is assembled");

  static final ArchRule CLI_USES_ONLY_THE_NODES_PUBLIC_API =
      noClasses()
          .that()
          .resideInAPackage("io.picomq.cli..")
          .should()
          .dependOnClassesThat(
              DescribedPredicate.describe(
                  "are node internals or the parts a node is built from (anything of"
                      + " io.picomq.node but Node, NodeConfig, NodeSupervisor, ConnectionSettings,"
                      + " ExposureSettings, TlsSettings, AccessSettings and Secret;"
                      + " server,"
                      + " stream contract, metadata, SQL, engine; the frontend but its ListenerProtocol)",
                  HostLayersTest::pastTheNodesApi))
          .because("pico serve runs a node as any embedder does, through io.picomq.node's API");

  private static final JavaClasses PRODUCTION =
      new ClassFileImporter()
          .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
          .importPackages("io.picomq");

  private static DescribedPredicate<JavaClass> host() {
    return DescribedPredicate.describe(
        "are host classes", c -> isIn(c, "io.picomq") && !isIn(c, "io.picomq.s3stream"));
  }

  /** Host classes outside the given packages (each with its subpackages). */
  private static DescribedPredicate<JavaClass> hostOutside(String... allowed) {
    return DescribedPredicate.describe(
        "are host classes outside " + String.join(", ", allowed),
        c -> {
          if (!c.getPackageName().startsWith("io.picomq.") || isIn(c, "io.picomq.s3stream")) {
            return false;
          }
          for (String root : allowed) {
            if (isIn(c, root)) {
              return false;
            }
          }
          return true;
        });
  }

  private static boolean pastTheNodesApi(JavaClass c) {
    if (isIn(c, "io.picomq.node")) {
      return !NODE_API.contains(c.getName());
    }
    if (isIn(c, "io.picomq.frontend")) {
      return !c.isEquivalentTo(ListenerProtocol.class);
    }
    return isIn(c, "io.picomq.stream")
        || isIn(c, "io.picomq.server")
        || isIn(c, "io.picomq.meta")
        || isIn(c, "io.picomq.sql")
        || isIn(c, "io.picomq.s3stream");
  }

  /** Whether {@code c} is in {@code root} or below it. */
  private static boolean isIn(JavaClass c, String root) {
    String name = c.getPackageName();
    return name.equals(root) || name.startsWith(root + ".");
  }

  @Test
  void theFrontendSeesOnlyTheStreamContract() {
    FRONTEND_SEES_ONLY_THE_STREAM_CONTRACT.check(PRODUCTION);
  }

  @Test
  void theServiceKnowsNoFrontendOrNode() {
    THE_SERVICE_KNOWS_NO_FRONTEND_OR_NODE.check(PRODUCTION);
  }

  @Test
  void onlyTheNodeUsesTheServiceImplementation() {
    ONLY_THE_NODE_USES_THE_SERVICE_IMPLEMENTATION.check(PRODUCTION);
  }

  @Test
  void onlyTheNodeStartsEnginesAndListeners() {
    ONLY_THE_NODE_STARTS_ENGINES_AND_LISTENERS.check(PRODUCTION);
  }

  @Test
  void theCliUsesOnlyTheNodesPublicApi() {
    CLI_USES_ONLY_THE_NODES_PUBLIC_API.check(PRODUCTION);
  }

  @Test
  void everyLayerIsImported() {
    for (String layer :
        new String[] {
          "io.picomq.stream",
          "io.picomq.server.service",
          "io.picomq.frontend.ds",
          "io.picomq.node",
          "io.picomq.cli"
        }) {
      assertThat(PRODUCTION.containPackage(layer)).as(layer).isTrue();
    }
  }

  @Test
  void theRulesRejectCodeThatCrossesTheLayers() {
    assertViolation(
        FRONTEND_SEES_ONLY_THE_STREAM_CONTRACT, ReachesIntoTheService.class, "MetadataPlane");
    assertViolation(
        ONLY_THE_NODE_USES_THE_SERVICE_IMPLEMENTATION, AssemblesANode.class, "MetadataPlane");
    assertViolation(ONLY_THE_NODE_STARTS_ENGINES_AND_LISTENERS, AssemblesANode.class, "Frontend");
    assertViolation(CLI_USES_ONLY_THE_NODES_PUBLIC_API, ReachesPastTheNode.class, "MetadataPlane");
  }

  @Test
  void theCliRuleLetsTheNodesPublicApiThrough() {
    EvaluationResult result =
        CLI_USES_ONLY_THE_NODES_PUBLIC_API.evaluate(
            new ClassFileImporter().importClasses(ReachesPastTheNode.class));
    String node = "<" + Node.class.getName();
    assertThat(result.getFailureReport().getDetails())
        .isNotEmpty()
        .allSatisfy(line -> assertThat(line).doesNotContain(node + ">").doesNotContain(node + "."));
  }

  private static void assertViolation(ArchRule rule, Class<?> fixture, String culprit) {
    EvaluationResult result = rule.evaluate(new ClassFileImporter().importClasses(fixture));
    assertThat(result.hasViolation()).as("%s on %s", rule, fixture).isTrue();
    assertThat(result.getFailureReport().getDetails())
        .anySatisfy(line -> assertThat(line).contains(culprit));
  }
}
