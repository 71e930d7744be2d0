# Sourced by bin/* and scripts/*: selects a JDK >= 21 into JAVA_HOME and PATH, or exits with a
# one-line explanation. Order: $JAVA_HOME, then the newest JDK under /usr/lib/jvm.

pico_java_major() { # prints the feature version of the java binary $1, or nothing
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
