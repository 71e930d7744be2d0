package io.picomq.s3stream.conformance.upstream;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The upstream publishes exactly the folders we cross-check, each with exactly the descriptive
 * files we read: a folder or manifest added upstream fails here until a test covers it, and one
 * removed cannot make its test pass on nothing. (The {@code .bin} files of each folder are checked
 * against its manifest by that folder's own test.)
 */
class UpstreamFoldersTest {

  private static final Map<String, String[]> DESCRIPTIONS =
      Map.of(
          "compaction", new String[] {"plans.json"},
          "crc", new String[] {"known_answers.json"},
          "keys", new String[] {"object_keys.json", "wal_prefixes.json"},
          "object", new String[] {"manifest.json"},
          "range_index", new String[] {"manifest.json"},
          "record", new String[] {"manifest.json"},
          "wal_object", new String[] {"headers.json"},
          "wal_objects", new String[] {"manifest.json"},
          "wal_record", new String[] {"manifest.json"});

  /** The folders holding {@code .bin} vectors, each listed by its folder's manifest. */
  private static final Set<String> WITH_BINARIES =
      Set.of("object", "range_index", "record", "wal_objects", "wal_record");

  @Test
  void theUpstreamHoldsExactlyTheFoldersWeCrossCheck() {
    assertThat(DESCRIPTIONS.keySet()).isEqualTo(CodecVectors.FOLDERS);
    assertThat(CodecVectors.folders(CodecVectors.requiredRoot()))
        .containsExactlyInAnyOrderElementsOf(CodecVectors.FOLDERS);
  }

  @Test
  void everyFolderHoldsExactlyTheDescriptionsWeRead() {
    DESCRIPTIONS.forEach(
        (name, files) -> {
          Path folder = CodecVectors.folder(name);
          assertThat(CodecVectors.files(folder, ""))
              .as(name)
              .filteredOn(file -> !file.endsWith(".bin"))
              .containsExactly(files);
        });
  }

  @Test
  void binariesAreOnlyWhereAManifestDescribesThem() {
    DESCRIPTIONS.keySet().stream()
        .filter(name -> !WITH_BINARIES.contains(name))
        .forEach(
            name ->
                assertThat(CodecVectors.files(CodecVectors.folder(name), ".bin"))
                    .as(name)
                    .isEmpty());
    WITH_BINARIES.forEach(
        name ->
            assertThat(CodecVectors.files(CodecVectors.folder(name), ".bin"))
                .as(name)
                .isNotEmpty());
  }
}
