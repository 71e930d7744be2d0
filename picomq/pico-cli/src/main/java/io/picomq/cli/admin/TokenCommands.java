package io.picomq.cli.admin;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.picomq.cli.DashedArguments;
import io.picomq.cli.admin.AdminCommand.AdminVerb;
import io.picomq.client.AdminClient;
import io.picomq.client.TokenScope;
import java.io.PrintWriter;
import java.time.Clock;
import java.util.Optional;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code pico admin token issue|list|revoke} and {@code pico admin anonymous show|set|clear}: the
 * admin API's access control. Each asks once, through the SDK's {@link AdminClient}, with the
 * caller's own token.
 */
final class TokenCommands {
  private TokenCommands() {}

  @Command(
      name = "token",
      mixinStandardHelpOptions = true,
      header = "Issue, list and revoke access tokens.",
      description = {
        "A token may issue only tokens no wider than itself. Revoking takes effect on",
        "every node from its next request."
      },
      subcommands = {Issue.class, ListTokens.class, Revoke.class})
  static final class Token implements Runnable {
    @Spec CommandSpec spec;

    @Override
    public void run() {
      spec.commandLine().usage(spec.commandLine().getErr());
    }
  }

  @Command(
      name = "issue",
      mixinStandardHelpOptions = true,
      description = {
        "Issue a token and print it on standard output (with --json, the whole answer).",
        "It is shown only now: the node keeps just a hash of its secret."
      })
  static final class Issue extends AdminVerb {
    @Mixin ScopeOptions scope;

    @Option(names = "--label", paramLabel = "TEXT", description = "A note for the listing.")
    String label;

    /** Where {@code --expires-in} counts from. */
    Clock clock = Clock.systemUTC();

    @Override
    JsonNode ask(AdminClient admin) {
      TokenScope wanted = scope.scope(clock);
      return admin.issueToken(wanted, Optional.ofNullable(label)).toJson();
    }

    @Override
    void printReadable(PrintWriter out, JsonNode answer) {
      out.println(answer.path("token").asText());
    }

    @Override
    void afterPrinting(AdminClient admin, JsonNode answer) {
      spec.commandLine()
          .getErr()
          .println(
              "pico: issued token "
                  + answer.path("id").asText()
                  + "; keep it safe, it cannot be shown again");
    }
  }

  @Command(
      name = "list",
      mixinStandardHelpOptions = true,
      description = "The live tokens: id, label, scope, when and by whom issued. No secrets.")
  static final class ListTokens extends AdminVerb {
    @Override
    JsonNode ask(AdminClient admin) {
      ObjectNode answer = JsonNodeFactory.instance.objectNode();
      ArrayNode tokens = answer.putArray("tokens");
      admin.tokens().forEach(token -> tokens.add(token.toJson()));
      return answer;
    }

    @Override
    void printReadable(PrintWriter out, JsonNode answer) {
      if (answer.path("tokens").isEmpty()) {
        spec.commandLine().getErr().println("pico: no tokens");
        return;
      }
      ArrayNode rows = JsonNodeFactory.instance.arrayNode();
      for (JsonNode token : answer.path("tokens")) {
        rows.add(row(token));
      }
      JsonText.table(out, rows);
    }

    private static ObjectNode row(JsonNode token) {
      ObjectNode row = JsonNodeFactory.instance.objectNode();
      row.put("id", token.path("id").asText());
      row.put("label", token.path("label").asText("-"));
      TokenScope scope = TokenScope.fromJson(token.path("scope"));
      row.setAll(ScopeOptions.readable(scope));
      row.put("created_at", token.path("created_at").asText());
      row.put("issued_by", token.path("issued_by").asText());
      return row;
    }
  }

  @Command(
      name = "revoke",
      mixinStandardHelpOptions = true,
      description = "Revoke token ID (as 'pico admin token list' shows it). Exit 3 if unknown.")
  static final class Revoke extends AdminVerb implements DashedArguments {
    @Parameters(index = "0", paramLabel = "ID", description = "The token's id.")
    String id;

    @Override
    JsonNode ask(AdminClient admin) {
      admin.revokeToken(id);
      return JsonNodeFactory.instance.objectNode().put("revoked", id);
    }
  }

  @Command(
      name = "anonymous",
      mixinStandardHelpOptions = true,
      header = "Show, set or clear what requests without a token may do.",
      description = {
        "With access control on, a request without a token is refused (401) unless an",
        "anonymous scope grants it. None is set at first."
      },
      subcommands = {Show.class, SetScope.class, Clear.class})
  static final class Anonymous implements Runnable {
    @Spec CommandSpec spec;

    @Override
    public void run() {
      spec.commandLine().usage(spec.commandLine().getErr());
    }
  }

  /** An anonymous-scope verb: answers {@code {"scope": {...} | null}}, printed as fields. */
  abstract static class AnonymousVerb extends AdminVerb {
    static JsonNode answer(Optional<TokenScope> scope) {
      ObjectNode answer = JsonNodeFactory.instance.objectNode();
      scope.ifPresentOrElse(s -> answer.set("scope", s.toJson()), () -> answer.putNull("scope"));
      return answer;
    }

    @Override
    void printReadable(PrintWriter out, JsonNode answer) {
      if (answer.path("scope").isNull()) {
        out.println("none: requests without a token are refused");
        return;
      }
      JsonText.object(out, ScopeOptions.readable(TokenScope.fromJson(answer.path("scope"))));
    }
  }

  @Command(name = "show", mixinStandardHelpOptions = true, description = "Print the scope.")
  static final class Show extends AnonymousVerb {
    @Override
    JsonNode ask(AdminClient admin) {
      return answer(admin.anonymousScope());
    }
  }

  @Command(
      name = "set",
      mixinStandardHelpOptions = true,
      description = "Let requests without a token do what this scope allows.")
  static final class SetScope extends AnonymousVerb {
    @Mixin ScopeOptions scope;

    /** Where {@code --expires-in} counts from. */
    Clock clock = Clock.systemUTC();

    @Override
    JsonNode ask(AdminClient admin) {
      TokenScope wanted = scope.scope(clock);
      admin.setAnonymousScope(wanted);
      return answer(Optional.of(wanted));
    }
  }

  @Command(
      name = "clear",
      mixinStandardHelpOptions = true,
      description = "Refuse requests without a token again.")
  static final class Clear extends AnonymousVerb {
    @Override
    JsonNode ask(AdminClient admin) {
      admin.clearAnonymousScope();
      return answer(Optional.empty());
    }
  }
}
