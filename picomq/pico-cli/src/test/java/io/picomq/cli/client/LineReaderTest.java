package io.picomq.cli.client;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayInputStream;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.Random;
import org.junit.jupiter.api.Test;

class LineReaderTest {

  @Test
  void splitsAtNewlinesAndKeepsEveryOtherByte() {
    assertThat(lines("a\n\nb\r\nlast", false)).containsExactly("a", "", "b\r", "last");
    assertThat(lines("a\nb\n", false)).containsExactly("a", "b");
    assertThat(lines("", false)).isEmpty();
    assertThat(lines("\n", false)).containsExactly("");
  }

  @Test
  void keepingNewlinesGivesBackTheInputWhenJoined() {
    assertThat(lines("a\n\nb\r\nlast", true)).containsExactly("a\n", "\n", "b\r\n", "last");
  }

  @Test
  void linesLongerThanTheBufferAndReadsThatStopMidLineAreWhole() {
    long seed = Long.getLong("picomq.seed", new Random().nextLong());
    Random random = new Random(seed);
    List<byte[]> expected = new ArrayList<>();
    StringBuilder input = new StringBuilder();
    for (int i = 0; i < 50; i++) {
      String line = "x".repeat(random.nextInt(200_000)) + i;
      expected.add(line.getBytes(StandardCharsets.UTF_8));
      input.append(line).append('\n');
    }
    // An input stream that hands out at most 7,000 bytes per read, like a pipe.
    byte[] bytes = input.toString().getBytes(StandardCharsets.UTF_8);
    InputStream trickle =
        new ByteArrayInputStream(bytes) {
          @Override
          public synchronized int read(byte[] b, int off, int len) {
            return super.read(b, off, Math.min(len, 7_000));
          }
        };
    LineReader reader = new LineReader(trickle, false);
    List<byte[]> actual = new ArrayList<>();
    for (Optional<byte[]> line = reader.next(); line.isPresent(); line = reader.next()) {
      actual.add(line.get());
    }
    assertThat(actual).as("seed %d", seed).hasSameSizeAs(expected);
    for (int i = 0; i < expected.size(); i++) {
      assertThat(Arrays.equals(actual.get(i), expected.get(i)))
          .as("line %d, seed %d", i, seed)
          .isTrue();
    }
  }

  private static List<String> lines(String input, boolean keepNewline) {
    LineReader reader =
        new LineReader(
            new ByteArrayInputStream(input.getBytes(StandardCharsets.UTF_8)), keepNewline);
    List<String> lines = new ArrayList<>();
    for (Optional<byte[]> line = reader.next(); line.isPresent(); line = reader.next()) {
      lines.add(new String(line.get(), StandardCharsets.UTF_8));
    }
    return lines;
  }
}
