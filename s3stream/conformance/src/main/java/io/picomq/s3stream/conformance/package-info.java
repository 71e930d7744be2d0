/**
 * Our golden fixtures: deterministic generators of every wire format the engine writes, whose
 * output is committed under {@code s3stream/conformance/fixtures/} and pinned by tests. A format
 * change needs a specification change and regenerated fixtures in the same commit.
 */
package io.picomq.s3stream.conformance;
