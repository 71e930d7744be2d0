package io.picomq.client;

import java.util.Optional;

/**
 * One Server-Sent Event.
 *
 * @param type the {@code event:} field; {@code message} when absent
 * @param id the {@code id:} field, if any
 * @param data the {@code data:} lines joined with {@code \n}
 */
record SseEvent(String type, Optional<String> id, String data) {}
