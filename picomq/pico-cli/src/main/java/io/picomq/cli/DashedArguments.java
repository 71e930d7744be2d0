package io.picomq.cli;

/**
 * A verb whose positional arguments may begin with '-' (token ids are base64url, so one in 64
 * does): an argument that is none of its options is taken as a parameter, not refused as an unknown
 * option. Options it does have ({@code --help}) still work.
 */
public interface DashedArguments {}
