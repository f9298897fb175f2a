from django.contrib.auth.hashers import PBKDF2PasswordHasher


class QuickPBKDF2PasswordHasher(PBKDF2PasswordHasher):
    """PBKDF2 with few rounds: test-only secrets, test-only speed."""

    algorithm = "pbkdf2_sha256_quick"
    iterations = 1000
