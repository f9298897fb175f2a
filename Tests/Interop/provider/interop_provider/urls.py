from django.contrib.auth import views as auth_views
from django.urls import include, path
from oauth2_provider import urls as oauth2_urls

from interop_provider.plain_oauth2 import user_endpoint

urlpatterns = [
    path("accounts/login/", auth_views.LoginView.as_view(), name="login"),
    path("accounts/logout/", auth_views.LogoutView.as_view(), name="logout"),
    # Issuer http://127.0.0.1:PORT/o: discovery at /o/.well-known/openid-configuration,
    # revocation at /o/revoke_token/ (not advertised by OIDC discovery; the RFC 8414
    # document at /o/.well-known/oauth-authorization-server does list it).
    path("o/", include(oauth2_urls)),
    # Plain OAuth 2.0 (no openid scope): the user endpoint of ../../dot_service.py.
    path("api/user/", user_endpoint),
]
