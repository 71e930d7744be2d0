/**
 * The PicoMQ Java SDK: a {@link io.picomq.client.PicoClient} that creates, appends to, reads,
 * lists, trims, seals and deletes streams over either wire protocol a PicoMQ listener speaks (the
 * native Pico protocol or Durable Streams), plus the two long-lived helpers most applications want:
 * a {@link io.picomq.client.Consumer} that follows a stream and resumes by itself after any
 * disconnect, and an idempotent {@link io.picomq.client.ProducerSession} that batches, pipelines
 * and retries appends without ever writing a record twice. Errors the server answers with become
 * typed unchecked exceptions under {@link io.picomq.client.PicoException}. A node with access
 * control gets a bearer token on every request ({@link io.picomq.client.PicoClient.Builder#token});
 * its admin client issues and revokes tokens ({@link io.picomq.client.AdminClient}).
 */
package io.picomq.client;
