/**
 * The client verbs of {@code pico}: {@code create}, {@code append}, {@code read}, {@code tail},
 * {@code head}, {@code ls}, {@code trim}, {@code close} and {@code delete}, each a thin command
 * over the {@code picomq-client} SDK. Records go to standard output in the chosen format; progress
 * and errors go to standard error.
 */
package io.picomq.cli.client;
