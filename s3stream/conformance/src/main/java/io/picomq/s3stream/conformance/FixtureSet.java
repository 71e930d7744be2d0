package io.picomq.s3stream.conformance;

import java.util.List;

/** A deterministic generator of the golden files for one family of formats. */
public interface FixtureSet {

  /** Every file of this family; the same bytes on every call, on every machine. */
  List<Fixture> fixtures();
}
