package io.picomq.s3stream.core.testing;

import java.util.EnumMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The moment one engine process "crashes": shared by the decorators around its stores and metadata
 * managers. Once tripped, every operation through them is refused and every answer still on its way
 * is lost (the operation may have taken effect, the process never learns it), exactly what a killed
 * process leaves behind.
 *
 * <p>It trips at a planned {@link Point} (the n-th operation at a site, before it reaches the real
 * part or after it took effect) or when {@link #trip()} is called (a crash at a random time).
 */
public final class CrashSwitch {

  /** Where an operation happens. */
  public enum Site {
    WAL_PUT,
    WAL_OTHER,
    DATA_PUT,
    DATA_OTHER,
    PREPARE,
    COMMIT,
    STREAM_OP
  }

  /**
   * The planned crash: at the {@code nth} operation (1-based) at {@code site} (any site if null),
   * before it reaches the real part, or after it took effect ({@code after}).
   */
  public record Point(Site site, int nth, boolean after) {
    @Override
    public String toString() {
      return (site == null ? "ANY" : site.name()) + "#" + nth + (after ? " after" : " before");
    }
  }

  private final Point point;
  private final AtomicBoolean crashed = new AtomicBoolean();
  private final Map<Site, AtomicInteger> counts = new EnumMap<>(Site.class);
  private final AtomicInteger all = new AtomicInteger();
  private final CompletableFuture<Void> tripped = new CompletableFuture<>();

  /**
   * @param point the planned crash, or null for none (only {@link #trip()} crashes)
   */
  public CrashSwitch(Point point) {
    this.point = point;
    for (Site site : Site.values()) {
      counts.put(site, new AtomicInteger());
    }
  }

  /** Never trips by plan. */
  public static CrashSwitch manual() {
    return new CrashSwitch(null);
  }

  public boolean isCrashed() {
    return crashed.get();
  }

  /** Completes when the switch trips. */
  public CompletableFuture<Void> tripped() {
    return tripped;
  }

  /** Crashes now. */
  public void trip() {
    if (crashed.compareAndSet(false, true)) {
      tripped.complete(null);
    }
  }

  /**
   * An operation at {@code site} is about to reach the real part.
   *
   * @return its ticket, to hand to {@link #after}; -1 if it must be refused
   */
  int before(Site site) {
    if (crashed.get()) {
      return -1;
    }
    int atSite = counts.get(site).incrementAndGet();
    int anywhere = all.incrementAndGet();
    int ticket = point != null && point.site() == null ? anywhere : atSite;
    if (matches(site, ticket) && !point.after()) {
      trip();
      return -1;
    }
    return ticket;
  }

  /**
   * The operation with {@code ticket} took effect.
   *
   * @return whether its answer is lost (the process crashed meanwhile, or crashes now)
   */
  boolean after(Site site, int ticket) {
    if (matches(site, ticket) && point.after()) {
      trip();
    }
    return crashed.get();
  }

  private boolean matches(Site site, int ticket) {
    return point != null && (point.site() == null || point.site() == site) && ticket == point.nth();
  }

  /** The error every refused or lost operation fails with. */
  static RuntimeException crashedError(Site site) {
    return new CrashedException("the process crashed (" + site + ")");
  }

  /** What a crashed process's operations fail with; never retried by the object store layer. */
  public static final class CrashedException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    CrashedException(String message) {
      super(message);
    }
  }
}
