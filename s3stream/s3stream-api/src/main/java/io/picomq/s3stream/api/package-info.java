/**
 * The engine's public contracts, the only engine types the host may use besides the facade's
 * builder in {@code io.picomq.s3stream}: the {@link io.picomq.s3stream.api.Stream} API the host
 * calls, and the {@link io.picomq.s3stream.api.StreamManager} and {@link
 * io.picomq.s3stream.api.ObjectManager} contracts through which the engine asks the host's metadata
 * plane to open, trim and close streams and to commit objects. The build rejects host code that
 * reaches past these packages.
 */
package io.picomq.s3stream.api;
