package io.picomq.cli.config;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;

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
   * The one of {@code alternatives} that is set at the highest level: flags, then variables, then
   * the profile. Alternatives are ways of giving the same thing (a token, or a file holding it), so
   * a flag for one beats a variable for the other, and two at the same level are an error rather
   * than one silently winning.
   *
   * @param flagValues what the command line said for each alternative; a missing key or a null
   *     value: its flag was not given
   * @return empty when none of them is set anywhere
   * @throws IllegalArgumentException if two are set at the winning level, or the value is malformed
   */
  public Optional<Chosen> resolveOneOf(
      List<Setting> alternatives, Map<Setting, String> flagValues) {
    Optional<Chosen> flagged =
        oneOf(alternatives, s -> flagValues.get(s), Setting::flag, s -> s.flag());
    if (flagged.isPresent()) {
      return flagged;
    }
    Optional<Chosen> fromEnv =
        oneOf(
            alternatives,
            s -> Optional.ofNullable(env.get(s.envVar())).filter(v -> !v.isBlank()).orElse(null),
            Setting::envVar,
            Setting::envVar);
    if (fromEnv.isPresent()) {
      return fromEnv;
    }
    Optional<String> profile = selectedProfile();
    if (profile.isEmpty()) {
      return Optional.empty();
    }
    Map<String, String> stored = file().profile(profile.get()).orElseThrow();
    String source = "profile " + profile.get();
    return oneOf(
        alternatives, s -> stored.get(s.key()), s -> s.key() + " in " + source, s -> source);
  }

  private static Optional<Chosen> oneOf(
      List<Setting> alternatives,
      Function<Setting, String> value,
      Function<Setting, String> name,
      Function<Setting, String> source) {
    Chosen chosen = null;
    for (Setting setting : alternatives) {
      String given = value.apply(setting);
      if (given == null) {
        continue;
      }
      if (chosen != null) {
        throw new IllegalArgumentException(
            name.apply(chosen.setting()) + " and " + name.apply(setting) + " exclude each other");
      }
      chosen =
          new Chosen(
              setting,
              new Resolved(setting.validate(given, name.apply(setting)), source.apply(setting)));
    }
    return Optional.ofNullable(chosen);
  }

  /**
   * Which of several alternative settings was given, and its value.
   *
   * @param setting the alternative that was given
   * @param resolved its value and where it came from
   */
  public record Chosen(Setting setting, Resolved resolved) {}

  /**
   * A resolved setting.
   *
   * @param value the normalized value
   * @param source where it came from: the flag, the variable, {@code profile NAME} or {@code
   *     default}
   */
  public record Resolved(String value, String source) {}
}
