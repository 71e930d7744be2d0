package io.picomq.frontend.bench;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What the server process costs, seen from outside: CPU time from {@code /proc/<pid>/stat} and heap
 * use from {@code jcmd <pid> GC.heap_info}.
 */
final class ServerProbe {
  private static final Pattern USED = Pattern.compile("used (\\d+)K");

  private final long pid;
  private final String jcmd;
  private final long ticksPerSecond;

  ServerProbe(long pid, String jcmd, long ticksPerSecond) {
    this.pid = pid;
    this.jcmd = jcmd;
    this.ticksPerSecond = ticksPerSecond;
  }

  /** User plus system CPU time the process used so far, in milliseconds. */
  long cpuMillis() throws IOException {
    String stat = Files.readString(Path.of("/proc/" + pid + "/stat"), StandardCharsets.US_ASCII);
    // Fields after the command name (which may hold spaces) start at state, field 3.
    String[] fields = stat.substring(stat.lastIndexOf(')') + 2).trim().split(" ");
    long ticks = Long.parseLong(fields[11]) + Long.parseLong(fields[12]);
    return ticks * 1000 / ticksPerSecond;
  }

  /** Heap in use now, in MiB (what jcmd reports; includes garbage not yet collected). */
  double heapUsedMib() throws IOException, InterruptedException {
    String info = run("GC.heap_info");
    Matcher used = USED.matcher(info);
    if (!used.find()) {
      throw new IOException("no heap use in: " + info);
    }
    return Long.parseLong(used.group(1)) / 1024.0;
  }

  /** Heap in use right after a full collection: the live set, in MiB. */
  double liveHeapMib() throws IOException, InterruptedException {
    run("GC.run");
    return heapUsedMib();
  }

  private String run(String command) throws IOException, InterruptedException {
    Process process =
        new ProcessBuilder(jcmd, Long.toString(pid), command).redirectErrorStream(true).start();
    String out = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    if (process.waitFor() != 0) {
      throw new IOException("jcmd " + command + " failed: " + out);
    }
    return out;
  }
}
