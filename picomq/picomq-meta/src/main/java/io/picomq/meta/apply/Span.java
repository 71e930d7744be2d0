package io.picomq.meta.apply;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * A half-open offset interval {@code [start, end)}, and the set arithmetic compaction needs to
 * compare what the sources held with what the new objects hold.
 */
record Span(long start, long end) {

  /** The disjoint, sorted union of {@code spans}, adjacent spans merged: [0,5)+[5,9) is [0,9). */
  static List<Span> union(List<Span> spans) {
    List<Span> sorted = new ArrayList<>(spans);
    sorted.sort(Comparator.comparingLong(Span::start));
    List<Span> merged = new ArrayList<>();
    for (Span span : sorted) {
      Span last = merged.isEmpty() ? null : merged.get(merged.size() - 1);
      if (last != null && span.start <= last.end) {
        merged.set(merged.size() - 1, new Span(last.start, Math.max(last.end, span.end)));
      } else {
        merged.add(span);
      }
    }
    return merged;
  }

  /** A disjoint sorted union cut below {@code from}: [0,9) from 4 is [4,9); [0,3) vanishes. */
  static List<Span> from(List<Span> union, long from) {
    List<Span> clipped = new ArrayList<>();
    for (Span span : union) {
      if (span.end > from) {
        clipped.add(new Span(Math.max(span.start, from), span.end));
      }
    }
    return clipped;
  }
}
