// mkbcrypt PASSWORD: prints a bcrypt ($2b$, cost 10) hash of PASSWORD made
// with libcrypt, for the tests' web config files (Debian has no htpasswd
// without apache2-utils).
#include <crypt.h>

#include <cstdio>

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: mkbcrypt PASSWORD\n");
    return 2;
  }
  const char* salt = crypt_gensalt_ra("$2b$", 10, nullptr, 0);
  if (!salt) return 1;
  crypt_data data{};
  const char* hash = crypt_r(argv[1], salt, &data);
  if (!hash || hash[0] == '*') return 1;
  std::puts(hash);
  return 0;
}
