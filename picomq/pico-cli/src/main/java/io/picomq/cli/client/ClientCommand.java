package io.picomq.cli.client;

import io.picomq.cli.ExitCode;
import io.picomq.cli.Pico;
import io.picomq.cli.config.Setting;
import io.picomq.client.PicoClient;
import io.picomq.client.Protocol;
import java.net.URI;
import java.util.concurrent.Callable;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/**
 * A client verb: resolves the endpoint, protocol, HTTP version and token (flag, environment,
 * profile, default), opens one {@link PicoClient} for the command and closes it afterwards.
 */
abstract class ClientCommand implements Callable<Integer> {

  @Spec CommandSpec spec;

  /** Runs the verb with a client made from the resolved settings; answers the exit code. */
  abstract int run(PicoClient client) throws Exception;

  @Override
  public final Integer call() throws Exception {
    try (PicoClient client = newClient()) {
      return run(client);
    } catch (Output.ReaderGone e) {
      // The reader of our output left (pico read s | head -1): as for cat, that is the end.
      return ExitCode.OK;
    }
  }

  final Pico pico() {
    return Pico.of(spec);
  }

  /** The protocol this command speaks; cheap, so Pico-only verbs refuse before connecting. */
  final Protocol protocol() {
    return pico().setting(Setting.PROTOCOL).equals("ds") ? Protocol.DURABLE_STREAMS : Protocol.PICO;
  }

  private PicoClient newClient() {
    Pico pico = pico();
    PicoClient.Builder builder =
        PicoClient.builder()
            .endpoint(URI.create(pico.setting(Setting.ENDPOINT)))
            .protocol(protocol())
            .http2(Boolean.parseBoolean(pico.setting(Setting.HTTP2)));
    pico.token().ifPresent(token -> builder.token(token.value()));
    pico.caCertificate().ifPresent(builder::caCertificate);
    return builder.build();
  }
}
