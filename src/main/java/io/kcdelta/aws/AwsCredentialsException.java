package io.kcdelta.aws;

import software.amazon.awssdk.core.exception.SdkClientException;

/**
 * Credentials could not be had (STS refused or failed to assume a role). A client exception, as the
 * SDK expects of a credentials provider; whether waiting helps is decided by its cause (an STS
 * answer or an I/O error), see {@code Transience}. The message names the role, the identity that
 * asked and what to check; never a secret.
 */
public final class AwsCredentialsException extends SdkClientException {
  private static final long serialVersionUID = 1L;

  public AwsCredentialsException(String message, Throwable cause) {
    super(SdkClientException.builder().message(message).cause(cause));
  }
}
