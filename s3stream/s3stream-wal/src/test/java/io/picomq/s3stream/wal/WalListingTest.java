package io.picomq.s3stream.wal;

import static org.assertj.core.api.Assertions.assertThat;

import io.picomq.s3stream.objectstore.ObjectInfo;
import io.picomq.s3stream.walobject.WalObjectKeys;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** The fencing rule and the contiguity rule, on listings alone. */
class WalListingTest {

  private static final String PREFIX = WalObjectKeys.nodePrefix("c", 1);
  private static final long UNIT = 64L << 20;

  @Test
  void theWorkedExampleOfTheFencingRule() {
    // 1:[0,1) 1:[1,2) 2:[2,3) 1:[2,3) 1:[3,4) 3:[3,4), in units of 64 MiB
    WalListing listing =
        WalListing.of(
            PREFIX,
            infos(v1(1, 0, 1), v1(1, 1, 2), v1(2, 2, 3), v1(1, 2, 3), v1(1, 3, 4), v1(3, 3, 4)));
    assertThat(names(listing.kept())).containsExactly("1:0", "1:1", "2:2", "3:3");
    assertThat(names(listing.dropped())).containsExactly("1:2", "1:3");
    assertThat(listing.newestEpoch()).contains(3L);
    assertThat(listing.endOffset()).isEqualTo(4 * UNIT);
  }

  @Test
  void anOlderObjectEndingExactlyAtTheFencePointIsKept() {
    WalListing listing = WalListing.of(PREFIX, infos(v1(4, 0, 2), v1(5, 2, 3)));
    assertThat(names(listing.kept())).containsExactly("4:0", "5:2");
    assertThat(listing.dropped()).isEmpty();
  }

  @Test
  void aFencePointHoldsForEveryOlderEpochNotOnlyTheNextOne() {
    // Epoch 3 started at 1; epoch 2 never wrote below 5; epoch 1's late object at [2,3) is a
    // zombie write past epoch 3's fence point.
    WalListing listing = WalListing.of(PREFIX, infos(v1(1, 2, 3), v1(2, 5, 6), v1(3, 1, 2)));
    assertThat(names(listing.dropped())).containsExactly("1:2", "2:5");
    assertThat(names(listing.kept())).containsExactly("3:1");
  }

  @Test
  void foreignKeysAreIgnoredAndAnEmptyWalStartsAtZero() {
    List<ObjectInfo> listing =
        List.of(new ObjectInfo(PREFIX + "3/wal/abc", 10), new ObjectInfo(PREFIX + "notes", 3));
    WalListing parsed = WalListing.of(PREFIX, listing);
    assertThat(parsed.all()).isEmpty();
    assertThat(parsed.newestEpoch()).isEmpty();
    assertThat(parsed.endOffset()).isZero();
  }

  @Test
  void aV0ObjectEndsWhereItsSizeSaysAndTheEndIsRoundedUp() {
    // v0 key: start 100, 40-byte header + 60 bytes of records -> ends at 160.
    WalListing listing =
        WalListing.of(PREFIX, List.of(new ObjectInfo(WalObjectKeys.keyV0(PREFIX, 1, 100), 100)));
    assertThat(listing.kept().getFirst().endOffset()).isEqualTo(160);
    assertThat(listing.endOffset()).isEqualTo(UNIT);
  }

  @Test
  void theChainStartsAtOrBeforeTheFirstUntrimmedOffsetAndHasNoHoles() {
    List<ListedObject> kept =
        WalListing.of(PREFIX, infos(v1(1, 0, 1), v1(1, 1, 2), v1(1, 2, 3), v1(1, 4, 5))).kept();
    List<ListedObject> chain = new ArrayList<>();
    // Trimmed through offset UNIT + 10, inside [1,2): the chain starts there, stops at the hole.
    Optional<String> stop = WalRecoveryReader.contiguousChain(kept, UNIT + 10, chain);
    assertThat(names(chain)).containsExactly("1:1", "1:2");
    assertThat(stop).hasValueSatisfying(why -> assertThat(why).startsWith("gap"));

    // Trimmed through 2*UNIT - 1: [1,2) is wholly trimmed; [2,3) starts right after.
    chain.clear();
    WalRecoveryReader.contiguousChain(kept, 2 * UNIT - 1, chain);
    assertThat(names(chain)).containsExactly("1:2");

    // The first untrimmed object starts after the first untrimmed offset: something between is
    // missing, so nothing is read.
    chain.clear();
    Optional<String> gap =
        WalRecoveryReader.contiguousChain(
            WalListing.of(PREFIX, infos(v1(1, 2, 3))).kept(), 5, chain);
    assertThat(chain).isEmpty();
    assertThat(gap).isPresent();
  }

  private static String v1(long epoch, long startUnits, long endUnits) {
    return WalObjectKeys.keyV1(PREFIX, epoch, startUnits * UNIT, endUnits * UNIT);
  }

  private static List<ObjectInfo> infos(String... keys) {
    return Arrays.stream(keys).map(k -> new ObjectInfo(k, 100)).toList();
  }

  private static List<String> names(List<ListedObject> objects) {
    return objects.stream().map(o -> o.epoch() + ":" + o.startOffset() / UNIT).toList();
  }
}
