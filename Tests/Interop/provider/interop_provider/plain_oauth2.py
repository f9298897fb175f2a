"""Plain OAuth 2.0 additions for Federate's OAuth-only interop test (../../dot_service.py).

- `user_endpoint`: a resource protected by DOT's own `protected_resource` decorator (scope
  `read`): the user as an OAuth 2.0 provider without ID tokens answers it, `{"id", "username",
  "email", "email_verified"}`, the id a number (the user's primary key).
- `AutoLoginMiddleware`: with FEDERATE_DOT_AUTO_LOGIN set, the browser is signed in as that
  user before DOT's authorization view runs, so a scripted relying party needs no login form
  (DOT's own login form is exercised by the OpenID scenarios in ../../scenarios.py).
"""
import os

from django.contrib.auth import get_user_model, login
from django.http import JsonResponse
from oauth2_provider.decorators import protected_resource


@protected_resource(scopes=["read"])
def user_endpoint(request):
    user = request.resource_owner
    return JsonResponse({"id": user.pk, "username": user.username, "email": user.email, "email_verified": True, "name": user.get_full_name()})


class AutoLoginMiddleware:
    def __init__(self, get_response):
        self.get_response = get_response
        self.username = os.environ.get("FEDERATE_DOT_AUTO_LOGIN")

    def __call__(self, request):
        if self.username and request.path.startswith("/o/authorize") and not request.user.is_authenticated:
            user = get_user_model().objects.get(username=self.username)
            login(request, user, backend="django.contrib.auth.backends.ModelBackend")
        return self.get_response(request)
