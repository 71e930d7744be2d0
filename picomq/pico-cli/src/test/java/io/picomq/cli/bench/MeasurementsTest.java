package io.picomq.cli.bench;

import static org.assertj.core.api.Assertions.assertThat;

import org.HdrHistogram.Histogram;
import org.junit.jupiter.api.Test;

class MeasurementsTest {
  private static final long MS = 1_000_000L;

  @Test
  void percentilesAreThoseOfTheRecordedLatencies() {
    Histogram micros = new Histogram(3);
    for (int i = 1; i <= 1000; i++) {
      micros.recordValue(i * 1000L); // 1 ms .. 1000 ms
    }
    LatencySummary summary = LatencySummary.of(micros);
    assertThat(summary.count()).isEqualTo(1000);
    assertThat(summary.p50()).isCloseTo(500, org.assertj.core.data.Offset.offset(1.0));
    assertThat(summary.p90()).isCloseTo(900, org.assertj.core.data.Offset.offset(1.0));
    assertThat(summary.p99()).isCloseTo(990, org.assertj.core.data.Offset.offset(1.0));
    assertThat(summary.p999()).isCloseTo(999, org.assertj.core.data.Offset.offset(1.0));
    assertThat(summary.max()).isCloseTo(1000, org.assertj.core.data.Offset.offset(1.0));
    assertThat(summary.mean()).isCloseTo(500.5, org.assertj.core.data.Offset.offset(1.0));
  }

  @Test
  void anEmptyHistogramSummarisesToZeros() {
    assertThat(LatencySummary.of(new Histogram(3)))
        .isEqualTo(new LatencySummary(0, 0, 0, 0, 0, 0, 0));
  }

  @Test
  void theWarmupShowsInProgressButNotInTheTotals() {
    Measurements measurements = new Measurements(100 * MS);
    // due during the warm-up, acknowledged 50 ms later
    measurements.acknowledged(10 * MS, 60 * MS, 5, 5 * 1024);
    // due after it, acknowledged 2 ms later
    measurements.acknowledged(100 * MS, 102 * MS, 1, 1024);
    measurements.delivered(10 * MS, 70 * MS);
    measurements.delivered(100 * MS, 103 * MS);

    IntervalStats interval = measurements.interval("run", 1.0, 1.0);
    assertThat(interval.records()).isEqualTo(6);
    assertThat(interval.bytes()).isEqualTo(6 * 1024);
    assertThat(interval.delivered()).isEqualTo(2);
    assertThat(interval.ack().max()).isCloseTo(50, org.assertj.core.data.Offset.offset(0.1));

    assertThat(measurements.acked()).isEqualTo(6);
    assertThat(measurements.ackedMeasured()).isEqualTo(1);
    assertThat(measurements.ackedMeasuredBytes()).isEqualTo(1024);
    LatencySummary ack = measurements.ackTotal();
    assertThat(ack.count()).isEqualTo(1);
    assertThat(ack.max()).isCloseTo(2, org.assertj.core.data.Offset.offset(0.01));
    LatencySummary e2e = measurements.endToEndTotal();
    assertThat(e2e.count()).isEqualTo(1);
    assertThat(e2e.max()).isCloseTo(3, org.assertj.core.data.Offset.offset(0.01));
    assertThat(measurements.delivered()).isEqualTo(2);
  }

  @Test
  void eachIntervalHoldsOnlyWhatHappenedInIt() {
    Measurements measurements = new Measurements(0);
    measurements.acknowledged(0, 10 * MS, 1, 100);
    measurements.failed(1);
    IntervalStats first = measurements.interval("run", 1, 1);
    IntervalStats second = measurements.interval("run", 2, 1);
    assertThat(first.records()).isEqualTo(1);
    assertThat(first.errors()).isEqualTo(1);
    assertThat(second.records()).isZero();
    assertThat(second.errors()).isZero();
    assertThat(second.ack().count()).isZero();
    // the totals still hold the first interval's sample
    assertThat(measurements.ackTotal().count()).isEqualTo(1);
    assertThat(measurements.failed()).isEqualTo(1);
  }

  @Test
  void aProgressLineShowsRatesAndPercentiles() {
    Measurements measurements = new Measurements(0);
    measurements.acknowledged(0, 2 * MS, 1000, 1_000_000);
    String line = measurements.interval("run", 3.0, 0.5).line(true);
    assertThat(line)
        .contains("3.0s")
        .contains("run")
        .contains("2000 rec/s")
        .contains("2.00 MB/s")
        .contains("ack p50    2.00ms p99    2.00ms")
        .contains("e2e p50");
  }
}
