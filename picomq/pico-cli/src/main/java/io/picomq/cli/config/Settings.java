package io.picomq.cli.config;

import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;

/**
 * Resolves client settings for one command: the flag wins, then the {@code PICO_*} environment
 * variable, then the selected profile, then the built-in default. The config file is read only when
 * a setting falls through to the profile, so a command given every flag never touches it.
 *
 * <p>The profile is the one named by {@code --profile}, else {@code PICO_PROFILE}, else the file's
 * current profile; naming a profile the file does not have is an error.
 */
public final class Settings {
  private final Map<String, String> env;
  private final Optional<String> profileFlag;
  private final Path path;
  // Read on first use; a command runs on one thread.
  private ConfigFile file;

  private Settings(Map<String, String> env, Optional<String> profileFlag) {
    this.env = Map.copyOf(env);
    this.profileFlag = profileFlag.filter(name -> !name.isBlank());
    this.path = ConfigFile.location(env);
  }

  /**
   * @param env the process environment (tests pass their own)
   * @param profileFlag the value of {@code --profile}, if given
   */
  public static Settings of(Map<String, String> env, Optional<String> profileFlag) {
    return new Settings(env, profileFlag);
  }

  /** Where the profiles live. */
  public Path path() {
    return path;
  }

  /** The profiles file as it is on disk now. */
  public ConfigFile file() {
    if (file == null) {
      file = ConfigFile.load(path);
    }
    return file;
  }

  /** The profile named by {@code --profile} or {@code PICO_PROFILE}, if any (it may not exist). */
  public Optional<String> requestedProfile() {
    return profileFlag.or(
        () -> Optional.ofNullable(env.get("PICO_PROFILE")).filter(name -> !name.isBlank()));
  }

  /**
   * The profile settings come from: the requested one, else the file's current one.
   *
   * @throws IllegalArgumentException if a requested profile is not in the file
   */
  public Optional<String> selectedProfile() {
    Optional<String> requested = requestedProfile();
    if (requested.isPresent()) {
      if (file().profile(requested.get()).isEmpty()) {
        throw new IllegalArgumentException(
            "no profile named '" + requested.get() + "' in " + path + " (see 'pico config ls')");
      }
      return requested;
    }
    return file().current().filter(name -> file().profile(name).isPresent());
  }

  /**
   * The value of {@code setting} for this command.
   *
   * @param flagValue what the command line said, or null when the flag was not given
   * @throws IllegalArgumentException if the winning value is malformed (names where it came from)
   */
  public Resolved resolve(Setting setting, String flagValue) {
    if (flagValue != null) {
      return new Resolved(setting.validate(flagValue, setting.flag()), setting.flag());
    }
    String fromEnv = env.get(setting.envVar());
    if (fromEnv != null && !fromEnv.isBlank()) {
      return new Resolved(setting.validate(fromEnv, setting.envVar()), setting.envVar());
    }
    Optional<String> profile = selectedProfile();
    if (profile.isPresent()) {
      String stored = file().profile(profile.get()).orElseThrow().get(setting.key());
      if (stored != null) {
        String source = "profile " + profile.get();
        return new Resolved(setting.validate(stored, setting.key() + " in " + source), source);
      }
    }
    return new Resolved(setting.defaultValue(), "default");
  }

  /**
   * A resolved setting.
   *
   * @param value the normalized value
   * @param source where it came from: the flag, the variable, {@code profile NAME} or {@code
   *     default}
   */
  public record Resolved(String value, String source) {}
}
