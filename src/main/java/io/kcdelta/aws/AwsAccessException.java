package io.kcdelta.aws;

import java.io.IOException;

/**
 * AWS refused a request of ours for a reason no retry fixes (an invalid or expired token, a wrong
 * secret, access denied); the message says which service, operation, resource and identity, and
 * what to check. The cause is the service's answer.
 */
public final class AwsAccessException extends IOException {
  private static final long serialVersionUID = 1L;

  public AwsAccessException(String message, Throwable cause) {
    super(message, cause);
  }
}
