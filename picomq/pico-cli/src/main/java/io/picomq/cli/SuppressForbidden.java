package io.picomq.cli;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Lets the annotated code use an API the forbiddenapis check refuses; the code says why next to it.
 * The check matches any annotation of this simple name (root pom, suppressAnnotations).
 */
@Retention(RetentionPolicy.CLASS)
@Target({ElementType.TYPE, ElementType.METHOD})
@interface SuppressForbidden {
  /** Why the forbidden API is needed here. */
  String reason();
}
