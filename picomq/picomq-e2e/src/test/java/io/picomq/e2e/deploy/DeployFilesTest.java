package io.picomq.e2e.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import io.picomq.e2e.ServerProcess;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.yaml.snakeyaml.LoaderOptions;
import org.yaml.snakeyaml.Yaml;
import org.yaml.snakeyaml.constructor.SafeConstructor;

/**
 * The deployment files under {@code deploy/} (compose files, the Dockerfile, the systemd unit and
 * its settings file) name settings, flags and paths of PicoMQ; there is no container engine on the
 * build machine to run them, so this checks what can be checked without one: every file parses,
 * every {@code PICO_*} variable and {@code --flag} they give {@code pico serve} is one it has (from
 * its own {@code --help}), and every path they name inside the release exists in the layout {@code
 * bin/dist} makes.
 */
class DeployFilesTest {
  private static final Pattern HELP_VARIABLE = Pattern.compile("\\((PICO_[A-Z0-9_]+)");
  private static final Pattern HELP_FLAG = Pattern.compile("(--[a-z0-9-]+)");
  private static final Path ROOT = ServerProcess.root();
  private static final Path DEPLOY = ROOT.resolve("deploy");

  private static Set<String> serveVariables;
  private static Set<String> serveFlags;

  @BeforeAll
  static void readServeHelp() throws Exception {
    Path out = Files.createTempFile("pico-serve-help", ".txt");
    Process help =
        ServerProcess.launcher(List.of("serve", "--help"))
            .redirectErrorStream(true)
            .redirectOutput(out.toFile())
            .start();
    assertThat(help.waitFor(60, TimeUnit.SECONDS)).isTrue();
    String text = Files.readString(out, StandardCharsets.UTF_8);
    Files.delete(out);
    serveVariables = matches(HELP_VARIABLE, text);
    serveFlags = matches(HELP_FLAG, text);
    assertThat(serveVariables).contains("PICO_META_URL", "PICO_STORAGE", "PICO_LISTEN");
  }

  @Test
  void composeFilesNameOnlySettingsTheServerHas() throws Exception {
    List<Path> files;
    try (var listing = Files.list(DEPLOY.resolve("compose"))) {
      files = listing.filter(p -> p.toString().endsWith(".yml")).sorted().toList();
    }
    assertThat(files)
        .extracting(p -> p.getFileName().toString())
        .contains("single-node.yml", "cluster.yml");
    String image = "picomq:" + version();
    for (Path file : files) {
      Map<String, Object> compose = yaml(file);
      Map<String, Object> services = map(compose.get("services"), file + ": services");
      List<String> picomq = new ArrayList<>();
      for (Map.Entry<String, Object> service : services.entrySet()) {
        Map<String, Object> definition = map(service.getValue(), file + ": " + service.getKey());
        if (!String.valueOf(definition.get("image")).startsWith("picomq:")) {
          continue;
        }
        picomq.add(service.getKey());
        assertThat(definition.get("image"))
            .as("%s: %s's image", file, service.getKey())
            .isEqualTo(image);
        Object environment = definition.get("environment");
        if (environment != null) {
          for (String name : map(environment, file + ": environment").keySet()) {
            if (name.startsWith("PICO_")) {
              assertThat(serveVariables)
                  .as("%s: %s sets %s", file, service.getKey(), name)
                  .contains(name);
            }
          }
        }
        assertFlagsKnown(file + ": " + service.getKey(), definition.get("command"));
        for (Object dependency : dependencies(definition)) {
          assertThat(services)
              .as("%s: %s depends on", file, service.getKey())
              .containsKey(String.valueOf(dependency));
        }
      }
      assertThat(picomq).as("%s runs PicoMQ", file).isNotEmpty();
    }
  }

  @Test
  void theDockerfileBuildsFromWhatDistMakes() throws Exception {
    List<String> lines = Files.readAllLines(DEPLOY.resolve("docker/Dockerfile"));
    String version = version();
    Map<String, String> args = new LinkedHashMap<>();
    boolean added = false;
    for (String line : lines) {
      String[] words = line.trim().split("\\s+");
      switch (words[0]) {
        case "ARG" -> {
          String[] kv = words[1].split("=", 2);
          args.put(kv[0], kv.length > 1 ? kv[1] : "");
        }
        case "ADD", "COPY" -> {
          String source = words[1];
          for (Map.Entry<String, String> arg : args.entrySet()) {
            source = source.replace("${" + arg.getKey() + "}", arg.getValue());
          }
          assertThat(source)
              .as("the tarball bin/dist makes")
              .isEqualTo("picomq-" + version + "-linux-x64.tar.gz");
          added = true;
        }
        case "ENV" -> {
          for (String word : words) {
            if (word.startsWith("PICO_")) {
              assertThat(serveVariables).contains(word.substring(0, word.indexOf('=')));
            }
          }
        }
        case "ENTRYPOINT" -> assertThat(line).contains("/opt/picomq/bin/pico");
        default -> {}
      }
    }
    assertThat(added).as("the Dockerfile adds the tarball").isTrue();
    assertThat(args.get("VERSION")).isEqualTo(version);
    assertInRelease("bin/pico");
  }

  @Test
  void theSystemdUnitRunsTheReleaseWithKnownSettings() throws Exception {
    String unit = Files.readString(DEPLOY.resolve("systemd/picomq.service"));
    Matcher exec = Pattern.compile("(?m)^ExecStart=/opt/picomq/(\\S+) serve(.*)$").matcher(unit);
    assertThat(exec.find()).as("ExecStart runs /opt/picomq/... serve").isTrue();
    assertInRelease(exec.group(1));
    assertFlagsKnown("picomq.service", List.of(exec.group(2).trim().split("\\s+")));
    for (String line : Files.readAllLines(DEPLOY.resolve("systemd/picomq.env"))) {
      String setting = line.replaceFirst("^#\\s*", "");
      if (setting.startsWith("PICO_")) {
        assertThat(serveVariables)
            .as("picomq.env: %s", line)
            .contains(setting.substring(0, setting.indexOf('=')));
      }
    }
  }

  /** {@code path} is in the release layout: bin/dist copies it from the repository. */
  private static void assertInRelease(String path) throws IOException {
    String dist = Files.readString(ROOT.resolve("bin/dist"));
    switch (path) {
      case "bin/pico" -> {
        assertThat(dist).contains("cp deploy/launcher/pico \"$stage/bin/pico\"");
        assertThat(DEPLOY.resolve("launcher/pico")).isExecutable();
      }
      default -> throw new AssertionError("not a file of the release: " + path);
    }
  }

  private static void assertFlagsKnown(String where, Object command) {
    if (command == null) {
      return;
    }
    List<?> words =
        command instanceof List<?> list ? list : List.of(command.toString().split("\\s+"));
    for (Object word : words) {
      String flag = String.valueOf(word).split("=", 2)[0];
      if (flag.startsWith("--")) {
        assertThat(serveFlags).as("%s passes %s", where, flag).contains(flag);
      }
    }
  }

  private static List<?> dependencies(Map<String, Object> service) {
    Object dependsOn = service.get("depends_on");
    if (dependsOn instanceof Map<?, ?> byName) {
      return List.copyOf(byName.keySet());
    }
    return dependsOn instanceof List<?> list ? list : List.of();
  }

  private static String version() throws IOException {
    Matcher version =
        Pattern.compile("<version>([^<]+)</version>")
            .matcher(Files.readString(ROOT.resolve("pom.xml")));
    assertThat(version.find()).isTrue();
    return version.group(1);
  }

  private static Map<String, Object> yaml(Path file) throws IOException {
    Object document =
        new Yaml(new SafeConstructor(new LoaderOptions())).load(Files.readString(file));
    return map(document, file.toString());
  }

  @SuppressWarnings("unchecked")
  private static Map<String, Object> map(Object value, String what) {
    assertThat(value).as(what).isInstanceOf(Map.class);
    return (Map<String, Object>) value;
  }

  private static Set<String> matches(Pattern pattern, String text) {
    Set<String> found = new TreeSet<>();
    Matcher matcher = pattern.matcher(text);
    while (matcher.find()) {
      found.add(matcher.group(1));
    }
    return found;
  }
}
