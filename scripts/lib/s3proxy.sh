# Sourced by the benchmark scripts: S3Proxy (org.gaul:s3proxy, the version the tests use) as an
# S3 server on loopback, with filesystem blobs and the credentials picomq-access/picomq-secret.
#
# start_s3proxy DIR TAG: starts it on a free port, blobs under DIR/blobs (a bucket is a directory
# there), its log in DIR/s3proxy.log; sets s3_port, appends its pid to the caller's `pids` array
# and returns once it answers. Needs $root (the repository), Maven, Java, curl and python3. TAG
# prefixes its messages; it exits the script when S3Proxy cannot start.
start_s3proxy() {
  local dir="$1" tag="$2" pid
  mkdir -p "$dir/blobs"
  # A throwaway module under the root pom resolves S3Proxy's classpath. Its relativePath must be
  # relative: Maven 3 appends an absolute one to the module's directory, and then finds the parent
  # only if it was installed in the local repository.
  local parent
  parent="$(python3 -c 'import os, sys; print(os.path.relpath(sys.argv[1], sys.argv[2]))' "$root/pom.xml" "$dir")"
  cat >"$dir/pom.xml" <<POM
<project xmlns="http://maven.apache.org/POM/4.0.0">
  <modelVersion>4.0.0</modelVersion>
  <parent><groupId>io.picomq</groupId><artifactId>picomq-parent</artifactId><version>0.1.0-SNAPSHOT</version><relativePath>$parent</relativePath></parent>
  <artifactId>$tag-s3proxy</artifactId>
  <dependencies>
    <dependency><groupId>org.gaul</groupId><artifactId>s3proxy</artifactId></dependency>
    <dependency><groupId>org.slf4j</groupId><artifactId>slf4j-simple</artifactId></dependency>
  </dependencies>
</project>
POM
  echo "$tag: resolving S3Proxy's classpath with Maven" >&2
  (cd "$dir" && mvn -B -ntp -q dependency:build-classpath -Dmdep.includeScope=runtime \
      -Dmdep.outputFile="$dir/classpath.txt" >"$dir/mvn.log" 2>&1) \
    || { echo "$tag: cannot resolve S3Proxy; see $dir/mvn.log" >&2; exit 1; }
  s3_port="$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"
  cat >"$dir/s3proxy.conf" <<CONF
s3proxy.endpoint=http://127.0.0.1:$s3_port
s3proxy.authorization=aws-v2-or-v4
s3proxy.identity=picomq-access
s3proxy.credential=picomq-secret
jclouds.provider=filesystem
jclouds.filesystem.basedir=$dir/blobs
CONF
  # S3Proxy's Main sends stdout and stderr to its logger: slf4j-simple must write to a file.
  java -Dorg.slf4j.simpleLogger.logFile="$dir/s3proxy.log" -cp "$(cat "$dir/classpath.txt")" \
    org.gaul.s3proxy.Main --properties "$dir/s3proxy.conf" >"$dir/stdout.log" 2>&1 &
  pid=$!
  pids+=("$pid")
  for _ in $(seq 1 600); do
    if curl -s -o /dev/null "http://127.0.0.1:$s3_port/"; then
      echo "$tag: S3Proxy on http://127.0.0.1:$s3_port (filesystem blobs)" >&2
      return 0
    fi
    kill -0 "$pid" 2>/dev/null \
      || { echo "$tag: S3Proxy exited; its log:" >&2; tail -20 "$dir/s3proxy.log" >&2; exit 1; }
    sleep 0.2
  done
  echo "$tag: S3Proxy does not answer after 120 s; see $dir/s3proxy.log" >&2
  exit 1
}
