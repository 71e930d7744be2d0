package io.picomq.s3stream.conformance;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The generator behind {@code scripts/generate-fixtures.sh}: writes every {@link FixtureSet}'s
 * files under a fixtures directory. Run it only together with a specification change; a failing
 * golden test is a format change to explain, never a reason to regenerate.
 */
public final class GoldenFixtures {

  private GoldenFixtures() {}

  /** Every fixture family the engine pins. */
  public static List<FixtureSet> sets() {
    return List.of(new CodecFixtures(), new WalObjectFixtures(), new ObjectFixtures());
  }

  /** Every fixture of every family, in a stable order. */
  public static List<Fixture> all() {
    List<Fixture> all = new ArrayList<>();
    sets().forEach(set -> all.addAll(set.fixtures()));
    return all;
  }

  /** Usage: {@code GoldenFixtures <fixtures-dir>}. */
  public static void main(String[] args) {
    if (args.length != 1) {
      throw new IllegalArgumentException("usage: GoldenFixtures <fixtures-dir>");
    }
    Path root = Path.of(args[0]);
    for (Fixture fixture : all()) {
      Path file = root.resolve(fixture.path());
      try {
        Files.createDirectories(file.getParent());
        Files.write(file, fixture.bytes());
      } catch (IOException e) {
        throw new UncheckedIOException("cannot write " + file, e);
      }
    }
  }
}
