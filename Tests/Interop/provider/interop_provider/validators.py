"""Standard OIDC claims for the test user (DOT's default validator only emits `sub`)."""
from oauth2_provider.oauth2_validators import OAuth2Validator


class InteropValidator(OAuth2Validator):
    # Request-agnostic form (no `request` parameter): DOT then also lists these claims in
    # discovery's claims_supported. Each value is computed per request from r.user.
    # DOT filters them by granted scope using OAuth2Validator.oidc_claim_scope.
    def get_additional_claims(self):
        return {
            "name": lambda r: r.user.get_full_name(),
            "given_name": lambda r: r.user.first_name,
            "family_name": lambda r: r.user.last_name,
            "preferred_username": lambda r: r.user.username,
            "email": lambda r: r.user.email,
            "email_verified": lambda r: True,
        }
