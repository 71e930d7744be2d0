package io.picomq.s3stream.objectstore.uri;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.quicktheories.QuickTheory.qt;
import static org.quicktheories.generators.SourceDSL.arbitrary;
import static org.quicktheories.generators.SourceDSL.booleans;
import static org.quicktheories.generators.SourceDSL.integers;
import static org.quicktheories.generators.SourceDSL.lists;
import static org.quicktheories.generators.SourceDSL.strings;

import io.picomq.s3stream.objectstore.uri.ObjectStorageUri.Scheme;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.quicktheories.core.Gen;

class ObjectStorageUriTest {

  @Test
  void fileUrisNameADirectory() {
    ObjectStorageUri relative = ObjectStorageUri.parse("-2@file://./objects");
    assertThat(relative.bucketId()).isEqualTo((short) -2);
    assertThat(relative.scheme()).isEqualTo(Scheme.FILE);
    assertThat(relative.path()).isEqualTo(Path.of("./objects"));
    assertThat(ObjectStorageUri.parse("0@file:///var/lib/picomq").path())
        .isEqualTo(Path.of("/var/lib/picomq"));
  }

  @Test
  void s3UrisCarryRegionEndpointAndPathStyle() {
    ObjectStorageUri uri =
        ObjectStorageUri.parse(
            "-2@s3://bucket?region=us-east-1&endpoint=http://host:9000&pathStyle=true");
    assertThat(uri.bucketId()).isEqualTo((short) -2);
    assertThat(uri.bucket()).isEqualTo("bucket");
    assertThat(uri.region()).isEqualTo("us-east-1");
    assertThat(uri.endpoint()).contains(URI.create("http://host:9000"));
    assertThat(uri.pathStyle()).isTrue();
    assertThat(uri.extraParams()).isEmpty();
  }

  @Test
  void s3DefaultsAreAwsLike() {
    ObjectStorageUri uri = ObjectStorageUri.parse("1@s3://my.bucket-1");
    assertThat(uri.region()).isEqualTo("us-east-1");
    assertThat(uri.endpoint()).isEmpty();
    assertThat(uri.pathStyle()).isFalse();
  }

  @Test
  void memoryUrisHaveAnOptionalLabel() {
    assertThat(ObjectStorageUri.parse("0@memory://test-1").location()).isEqualTo("test-1");
    assertThat(ObjectStorageUri.parse("0@memory://").location()).isEmpty();
  }

  @Test
  void walParametersRideAlongUncheckedAndInOrder() {
    ObjectStorageUri uri =
        ObjectStorageUri.parse(
            "1@s3://wal-bucket?region=eu-west-1&maxBytesInBatch=8388608&batchInterval=abc"
                + "&maxUnflushedBytes=1073741824&maxInflightUploadCount=50");
    assertThat(uri.extraParams())
        .containsExactly(
            Map.entry("maxBytesInBatch", "8388608"),
            Map.entry("batchInterval", "abc"),
            Map.entry("maxUnflushedBytes", "1073741824"),
            Map.entry("maxInflightUploadCount", "50"));
    assertThat(ObjectStorageUri.parse("0@file://wal?batchInterval=250").extraParams())
        .containsExactly(Map.entry("batchInterval", "250"));
  }

  @Test
  void callersMayAllowOtherParameters() {
    ObjectStorageUri uri = ObjectStorageUri.parse("0@memory://x?cacheSize=10", Set.of("cacheSize"));
    assertThat(uri.extraParams()).containsExactly(Map.entry("cacheSize", "10"));
    assertThatThrownBy(() -> ObjectStorageUri.parse("0@memory://x?batchInterval=1", Set.of()))
        .hasMessageContaining("unknown parameter 'batchInterval'");
  }

  @Test
  void percentEscapesInValuesAreDecoded() {
    ObjectStorageUri uri =
        ObjectStorageUri.parse("0@s3://b-1?endpoint=http%3A%2F%2Fhost%3A9000&region=us-east-1");
    assertThat(uri.endpoint()).contains(URI.create("http://host:9000"));
  }

  @Test
  void theNextBucketIdNamesTheSameBucket() {
    ObjectStorageUri data = ObjectStorageUri.parse("0@s3://b-1?region=us-east-1");
    ObjectStorageUri wal = data.withBucketId((short) 1);
    assertThat(wal.bucketId()).isEqualTo((short) 1);
    assertThat(wal.bucket()).isEqualTo("b-1");
    assertThat(wal.toString()).isEqualTo("1@s3://b-1?region=us-east-1");
  }

  @Test
  void schemeSpecificAccessorsRefuseOtherSchemes() {
    ObjectStorageUri file = ObjectStorageUri.parse("0@file://x");
    assertThatThrownBy(file::bucket).hasMessageContaining("s3://");
    assertThatThrownBy(() -> ObjectStorageUri.parse("0@s3://bbb").path())
        .hasMessageContaining("file://");
  }

  @ParameterizedTest(name = "[{index}] {0}")
  @CsvSource(
      delimiter = '|',
      value = {
        "''                                       | it is empty",
        "s3://bucket                              | missing '@'",
        "@s3://bucket                             | missing bucket id",
        "abc@s3://bucket                          | bucket id 'abc' is not an integer",
        "1.5@s3://bucket                          | bucket id '1.5' is not an integer",
        "+1@s3://bucket                           | bucket id '+1' is not an integer",
        "40000@s3://bucket                        | bucket id 40000 is outside -32768..32767",
        "99999999999@s3://bucket                  | is outside -32768..32767",
        "0@s3:/bucket                             | missing '://'",
        "0@://bucket                              | missing scheme",
        "0@gcs://bucket                           | unknown scheme 'gcs'",
        "0@S3://bucket                            | unknown scheme 'S3'",
        "0@s3://                                  | missing bucket after s3://",
        "0@s3://?region=us-east-1                 | missing bucket after s3://",
        "0@s3://bucket/prefix                     | contains '/'",
        "0@s3://My_Bucket                         | not a valid S3 bucket name",
        "0@s3://ab                                | not a valid S3 bucket name",
        "0@s3://a..b                              | not a valid S3 bucket name",
        "0@file://                                | missing directory after file://",
        "0@memory://bad/name                      | memory store name 'bad/name'",
        "0@s3://bucket?                           | nothing after '?'",
        "0@s3://bucket?region                     | parameter 'region' has no value",
        "0@s3://bucket?=x                         | has no name",
        "0@s3://bucket?region=us-east-1&          | empty parameter",
        "0@s3://bucket?region=a&region=b          | parameter 'region' is given twice",
        "0@s3://bucket?colour=blue                | unknown parameter 'colour' for s3://",
        "0@file://x?region=us-east-1              | applies to s3:// only, not file://",
        "0@memory://x?endpoint=http://h           | applies to s3:// only, not memory://",
        "0@s3://bucket?region=US East             | region 'US East' is not a region name",
        "0@s3://bucket?endpoint=host:9000         | endpoint 'host:9000' must be an http:// or https:// URL",
        "0@s3://bucket?endpoint=ftp://host        | endpoint 'ftp://host' must be",
        "0@s3://bucket?endpoint=http://           | endpoint 'http://' must be",
        "0@s3://bucket?endpoint=http://h:9/path   | endpoint 'http://h:9/path' must be",
        "0@s3://bucket?endpoint=http://u@h:9      | endpoint 'http://u@h:9' must be",
        "0@s3://bucket?endpoint=http://h h        | endpoint 'http://h h' must be",
        "0@s3://bucket?pathStyle=yes              | pathStyle must be true or false, not 'yes'",
        "0@s3://bucket?region=%zz                 | broken %-escape",
        "0@s3://bucket?batchInterval=%ED%A0%80     | are not UTF-8",
      })
  void malformedUrisAreRejectedWithOneClearLine(String text, String expected) {
    assertThatThrownBy(() -> ObjectStorageUri.parse(text))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("invalid storage URI '" + text + "': ")
        .hasMessageContaining(expected)
        .satisfies(e -> assertThat(e.getMessage()).doesNotContain("\n"));
  }

  @Test
  void toStringParsesBackToAnEqualUri() {
    // The filters below refuse a few drawn values (lone surrogates, ".." in a bucket name); the
    // generous attempt budget keeps QuickTheories from giving up on a run of them.
    qt().withExamples(300)
        .withGenerateAttempts(100)
        .forAll(uris())
        .checkAssert(uri -> assertThat(ObjectStorageUri.parse(uri.toString())).isEqualTo(uri));
  }

  private static Gen<ObjectStorageUri> uris() {
    Gen<Short> ids = integers().between(Short.MIN_VALUE, Short.MAX_VALUE).map(Integer::shortValue);
    Gen<String> values = text(1, 12).assuming(ObjectStorageUriTest::wellFormed);
    Gen<String> bucketNames =
        lists()
            .of(arbitrary().pick('a', 'b', 'c', '0', '1', '9', '.', '-'))
            .ofSizeBetween(1, 20)
            .map(chars -> chars.stream().map(String::valueOf).collect(Collectors.joining()))
            .assuming(n -> !n.contains(".."));
    Gen<ObjectStorageUri> s3 =
        ids.zip(
            bucketNames,
            arbitrary().pick("us-east-1", "eu-west-3"),
            booleans().all(),
            values,
            (id, name, region, pathStyle, wal) -> {
              Map<String, String> params = new LinkedHashMap<>();
              params.put("batchInterval", wal);
              params.put("region", region);
              params.put("pathStyle", Boolean.toString(pathStyle));
              params.put("endpoint", "https://h" + Math.abs(id % 10) + ":90");
              return new ObjectStorageUri(id, Scheme.S3, "b" + name + "0", params);
            });
    Gen<ObjectStorageUri> file =
        ids.zip(
            text(1, 20).assuming(p -> p.indexOf('?') < 0 && p.indexOf('\0') < 0 && wellFormed(p)),
            values,
            (id, path, wal) ->
                new ObjectStorageUri(id, Scheme.FILE, path, Map.of("maxInflightUploadCount", wal)));
    Gen<ObjectStorageUri> memory =
        ids.map(id -> new ObjectStorageUri(id, Scheme.MEMORY, "m", Map.of()));
    List<Gen<ObjectStorageUri>> schemes = List.of(s3, file, memory);
    return integers().between(0, schemes.size() - 1).flatMap(schemes::get);
  }

  /** Any UTF-16 text (lone surrogates included), half the time with characters beyond the BMP. */
  private static Gen<String> text(int minLength, int maxLength) {
    return strings()
        .betweenCodePoints(0, Character.MAX_VALUE)
        .ofLengthBetween(minLength, maxLength)
        .mix(strings().allPossible().ofLengthBetween(minLength, maxLength));
  }

  private static boolean wellFormed(String s) {
    return StandardCharsets.UTF_8.newEncoder().canEncode(s);
  }

  @Test
  void recordsBuiltInCodeAreCheckedToo() {
    assertThatThrownBy(
            () -> new ObjectStorageUri((short) 0, Scheme.S3, "bucket", Map.of("pathStyle", "1")))
        .hasMessageContaining("pathStyle must be true or false");
    assertThatThrownBy(() -> new ObjectStorageUri((short) 0, Scheme.FILE, "x", Map.of("a&b", "1")))
        .hasMessageContaining("parameter name 'a&b'");
    assertThat(new ObjectStorageUri((short) 3, Scheme.MEMORY, "", Map.of()).params()).isEmpty();
    assertThatThrownBy(() -> new ObjectStorageUri((short) 0, Scheme.FILE, "x\uD800", Map.of()))
        .hasMessageContaining("not well-formed Unicode");
  }
}
