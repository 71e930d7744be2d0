/**
 * The {@code pico} command line: one launcher for the server and the client verbs. Commands write
 * data to standard output and everything else to standard error.
 */
package io.picomq.cli;
