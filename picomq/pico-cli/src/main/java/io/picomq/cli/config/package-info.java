/**
 * Client settings and profiles: where {@code pico}'s client verbs send their requests. A setting
 * comes from its flag, else its {@code PICO_*} environment variable, else the selected profile in
 * the config file, else its built-in default; {@code pico config} edits the file. The token the
 * verbs send resolves the same way ({@link io.picomq.cli.config.TokenSources}), and is never shown.
 */
package io.picomq.cli.config;
