# Sourced by bin/* and scripts/*: selects a JDK >= 21 into JAVA_HOME and PATH, or exits with a
# one-line explanation. Order: $JAVA_HOME, then the newest JDK under /usr/lib/jvm.

pico_java_major() { # prints the feature version of the java binary $1, or nothing
  # The JDK's release file says it without starting a JVM (which costs every bin/pico run ~50 ms);
  # ask the JVM only when there is no such file (or an old 1.x one).
  local release major
  release="$(dirname "$(dirname "$1")")/release"
  if [ -r "$release" ]; then
    major=$(sed -n 's/^JAVA_VERSION="\([0-9][0-9]*\).*/\1/p' "$release" | head -n1)
    if [ -n "$major" ] && [ "$major" != 1 ]; then
      echo "$major"
      return 0
    fi
  fi
  "$1" -XshowSettings:properties -version 2>&1 | sed -n 's/^ *java\.specification\.version = //p' | head -n1
}

pico_select_jdk() {
  local candidate major
  for candidate in "${JAVA_HOME:-}" $(ls -d /usr/lib/jvm/*/ 2>/dev/null | sort -rV); do
    candidate="${candidate%/}"
    [ -n "$candidate" ] && [ -x "$candidate/bin/java" ] && [ -x "$candidate/bin/javac" ] || continue
    major=$(pico_java_major "$candidate/bin/java")
    if [ -n "$major" ] && [ "$major" -ge 21 ] 2>/dev/null; then
      export JAVA_HOME="$candidate"
      PICO_JAVA_MAJOR="$major"
      export PATH="$JAVA_HOME/bin:$PATH"
      # Maven's own Guava warns about sun.misc.Unsafe on JDK 24+; the warning is not ours.
      if [ "$major" -ge 24 ]; then
        export MAVEN_OPTS="${MAVEN_OPTS:-} --sun-misc-unsafe-memory-access=allow"
      fi
      return 0
    fi
  done
  echo "PicoMQ needs a JDK 21 or newer: set JAVA_HOME to one (none found in \$JAVA_HOME or /usr/lib/jvm)." >&2
  exit 1
}

pico_select_jdk
