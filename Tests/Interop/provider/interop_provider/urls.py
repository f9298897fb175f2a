from django.contrib.auth import views as auth_views
from django.urls import include, path
from oauth2_provider import urls as oauth2_urls

urlpatterns = [
    path("accounts/login/", auth_views.LoginView.as_view(), name="login"),
    path("accounts/logout/", auth_views.LogoutView.as_view(), name="logout"),
    # Issuer http://127.0.0.1:PORT/o: discovery at /o/.well-known/openid-configuration,
    # revocation at /o/revoke_token/ (not advertised by OIDC discovery; the RFC 8414
    # document at /o/.well-known/oauth-authorization-server does list it).
    path("o/", include(oauth2_urls)),
]
