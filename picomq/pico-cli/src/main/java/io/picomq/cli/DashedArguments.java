package io.picomq.cli;

/**
 * A verb whose positional arguments may begin with '-' (tokens and their ids are base64url: one in
 * 64 does). An argument that is none of its options is taken as a parameter, not refused as an
 * unknown option; options it does have ({@code --help}) still work.
 */
public interface DashedArguments {}
