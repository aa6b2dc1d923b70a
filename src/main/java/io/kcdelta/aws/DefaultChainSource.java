package io.kcdelta.aws;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import software.amazon.awssdk.core.SdkSystemSetting;

/**
 * Which source of the SDK's default chain will answer, told from the settings each source reads, in
 * the chain's order (system properties, environment, web identity token file, profile, container,
 * instance profile): the first whose settings are present is the one the chain takes, unless its
 * credentials fail to load.
 */
final class DefaultChainSource {
  private DefaultChainSource() {}

  /** " (web identity token file, role arn:…)" and so on; never a secret. */
  static String describe() {
    if (System.getProperty("aws.accessKeyId") != null) {
      return " (Java system properties, access key id "
          + System.getProperty("aws.accessKeyId")
          + ")";
    }
    if (System.getenv("AWS_ACCESS_KEY_ID") != null) {
      return " (environment, access key id " + System.getenv("AWS_ACCESS_KEY_ID") + ")";
    }
    Optional<String> tokenFile = SdkSystemSetting.AWS_WEB_IDENTITY_TOKEN_FILE.getStringValue();
    Optional<String> role = SdkSystemSetting.AWS_ROLE_ARN.getStringValue();
    if (tokenFile.isPresent() && role.isPresent()) {
      return " (web identity token file, IRSA: role " + role.get() + ")";
    }
    String profile = Optional.ofNullable(System.getenv("AWS_PROFILE")).orElse("default");
    String home = System.getProperty("user.home");
    if (System.getenv("AWS_PROFILE") != null
        || (home != null && Files.exists(Path.of(home, ".aws", "credentials")))) {
      return " (profile " + profile + ")";
    }
    if (SdkSystemSetting.AWS_CONTAINER_CREDENTIALS_FULL_URI.getStringValue().isPresent()
        || SdkSystemSetting.AWS_CONTAINER_CREDENTIALS_RELATIVE_URI.getStringValue().isPresent()) {
      return " (container credentials: ECS task role or EKS Pod Identity)";
    }
    return " (EC2 instance profile, if any)";
  }
}
