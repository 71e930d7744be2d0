/**
 * Test doubles and the contract suite for {@link io.picomq.stream.StreamService}: a faithful
 * in-memory implementation, shipped in the test-jar so the frontends can be built and tested before
 * the real service exists, and the abstract suite every implementation passes.
 */
package io.picomq.stream.testing;
