package io.picomq.frontend.access;

import java.util.List;

/** What a request needs of a scope, decided from its head ({@link RequestNeeds}). */
public sealed interface Need {

  /** Nothing: answered to anyone (health, readiness, a plain {@code OPTIONS}). */
  record Open() implements Need {}

  /** A valid credential, no verb: paths the protocol answers 404 or 405 anyway. */
  record AnyCredential() implements Need {}

  /**
   * Each verb on its stream (a fork needs {@code fork} on the new stream, {@code read} on the
   * source).
   */
  record OnStreams(List<Grant> grants) implements Need {
    public OnStreams {
      grants = List.copyOf(grants);
    }

    public static OnStreams of(Verb verb, String stream) {
      return new OnStreams(List.of(new Grant(verb, stream)));
    }
  }

  /** {@code list} over every stream whose name starts with {@code prefix}. */
  record Listing(String prefix) implements Need {}

  /** A verb that names no stream: the admin listener's. */
  record Cluster(Verb verb) implements Need {}

  /** One verb on one stream (its name with the leading {@code /}). */
  record Grant(Verb verb, String stream) {}

  Need OPEN = new Open();
  Need ANY_CREDENTIAL = new AnyCredential();
}
