package io.picomq.cli.config;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Collections;
import java.util.Iterator;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * The profiles file, e.g. {@code ~/.config/pico/config.json}:
 *
 * <pre>{@code
 * {"current": "staging",
 *  "profiles": {"staging": {"endpoint": "http://10.0.0.5:4437", "protocol": "pico"}}}
 * }</pre>
 *
 * <p>An immutable snapshot: the {@code with*} methods return a changed copy, and {@link #save}
 * writes it through a temporary file and a rename, so a reader never sees half a file.
 *
 * @param current the profile used when neither {@code --profile} nor {@code PICO_PROFILE} names one
 * @param profiles each profile's settings, by setting key
 */
public record ConfigFile(Optional<String> current, Map<String, Map<String, String>> profiles) {
  private static final ObjectMapper JSON =
      new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);

  public ConfigFile {
    // Sorted copies, so the file and 'pico config ls' list profiles and keys in name order.
    Map<String, Map<String, String>> copy = new TreeMap<>();
    profiles.forEach(
        (name, settings) -> copy.put(name, Collections.unmodifiableMap(new TreeMap<>(settings))));
    profiles = Collections.unmodifiableMap(copy);
  }

  /** No profiles at all: what a missing file means. */
  public static ConfigFile empty() {
    return new ConfigFile(Optional.empty(), Map.of());
  }

  /**
   * Where the file lives: {@code PICO_CONFIG}, else {@code $XDG_CONFIG_HOME/pico/config.json}, else
   * {@code ~/.config/pico/config.json}.
   */
  public static Path location(Map<String, String> env) {
    String explicit = env.get("PICO_CONFIG");
    if (explicit != null && !explicit.isBlank()) {
      return Path.of(explicit);
    }
    String xdg = env.get("XDG_CONFIG_HOME");
    Path base =
        xdg != null && !xdg.isBlank()
            ? Path.of(xdg)
            : Path.of(System.getProperty("user.home"), ".config");
    return base.resolve("pico").resolve("config.json");
  }

  /**
   * Reads the file; a missing file is {@link #empty()}.
   *
   * @throws IllegalArgumentException if the file is not the JSON this class writes
   */
  public static ConfigFile load(Path path) {
    if (!Files.exists(path)) {
      return empty();
    }
    JsonNode root;
    try {
      root = JSON.readTree(path.toFile());
    } catch (IOException e) {
      throw new IllegalArgumentException(
          "cannot read the config file " + path + ": " + e.getMessage(), e);
    }
    if (root == null || !root.isObject()) {
      throw new IllegalArgumentException("the config file " + path + " is not a JSON object");
    }
    Optional<String> current =
        root.path("current").isTextual()
            ? Optional.of(root.path("current").asText())
            : Optional.empty();
    Map<String, Map<String, String>> profiles = new TreeMap<>();
    for (Iterator<Map.Entry<String, JsonNode>> it = root.path("profiles").fields();
        it.hasNext(); ) {
      Map.Entry<String, JsonNode> profile = it.next();
      Map<String, String> settings = new TreeMap<>();
      profile
          .getValue()
          .fields()
          .forEachRemaining(e -> settings.put(e.getKey(), e.getValue().asText()));
      profiles.put(profile.getKey(), settings);
    }
    return new ConfigFile(current, profiles);
  }

  /** Writes the file, creating its directory, through a temporary file and a rename. */
  public void save(Path path) {
    ObjectNode root = JSON.createObjectNode();
    current.ifPresent(name -> root.put("current", name));
    ObjectNode profilesNode = root.putObject("profiles");
    profiles.forEach(
        (name, settings) -> {
          ObjectNode node = profilesNode.putObject(name);
          settings.forEach(node::put);
        });
    try {
      Path dir = path.toAbsolutePath().getParent();
      Files.createDirectories(dir);
      Path temp = Files.createTempFile(dir, ".config", ".json.tmp");
      try {
        Files.write(temp, JSON.writeValueAsBytes(root));
        try {
          Files.move(
              temp, path, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        } catch (AtomicMoveNotSupportedException e) {
          Files.move(temp, path, StandardCopyOption.REPLACE_EXISTING);
        }
      } finally {
        Files.deleteIfExists(temp);
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write the config file " + path, e);
    }
  }

  public Optional<Map<String, String>> profile(String name) {
    return Optional.ofNullable(profiles.get(name));
  }

  /** A copy with {@code key} set in profile {@code name} (created if new). */
  public ConfigFile withSetting(String name, String key, String value) {
    Map<String, Map<String, String>> changed = new TreeMap<>(profiles);
    Map<String, String> settings = new TreeMap<>(changed.getOrDefault(name, Map.of()));
    settings.put(key, value);
    changed.put(name, settings);
    return new ConfigFile(current, changed);
  }

  /** A copy without {@code key} in profile {@code name}. */
  public ConfigFile withoutSetting(String name, String key) {
    Map<String, Map<String, String>> changed = new TreeMap<>(profiles);
    Map<String, String> settings = new TreeMap<>(changed.getOrDefault(name, Map.of()));
    settings.remove(key);
    changed.put(name, settings);
    return new ConfigFile(current, changed);
  }

  /** A copy without profile {@code name}; if it was current, no profile is current any more. */
  public ConfigFile withoutProfile(String name) {
    Map<String, Map<String, String>> changed = new TreeMap<>(profiles);
    changed.remove(name);
    return new ConfigFile(current.filter(c -> !c.equals(name)), changed);
  }

  /** A copy whose current profile is {@code name}. */
  public ConfigFile withCurrent(String name) {
    return new ConfigFile(Optional.of(name), profiles);
  }
}
