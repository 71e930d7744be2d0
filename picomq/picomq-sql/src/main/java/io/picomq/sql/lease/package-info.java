/**
 * The maintenance lease: one SQL row (holder, epoch, expiry) elects the node that runs maintenance.
 * The holder renews it with conditional updates, demotes itself when it cannot confirm a renewal in
 * time, and releases it on a clean shutdown; the epoch grows with every takeover and serves as a
 * fencing token. Correctness never depends on the lease: it only keeps nodes from doing the same
 * maintenance twice. Entry point: {@link io.picomq.sql.lease.MaintenanceLease}.
 */
package io.picomq.sql.lease;
