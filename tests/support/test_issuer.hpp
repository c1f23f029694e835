#pragma once
// An OAuth authorization server of the tests' own: keys generated here
// (RSA 2048 and P-256, with OpenSSL), its RFC 8414 metadata and JWKS served
// on 127.0.0.1, and JWTs signed with those keys, well-formed or not.

#include <atomic>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include <boost/json.hpp>
#include <httplib.h>
#include <openssl/bn.h>
#include <openssl/core_names.h>
#include <openssl/ecdsa.h>
#include <openssl/evp.h>
#include <openssl/rsa.h>

#include "transitd/transport/oauth.hpp"

namespace transitd::testing {

class test_issuer {
public:
  test_issuer() {
    server_.Get("/.well-known/oauth-authorization-server",
                [this](const httplib::Request&, httplib::Response& res) {
                  boost::json::object m;
                  m["issuer"] = url();
                  m["jwks_uri"] = url() + "/jwks";
                  m["token_endpoint"] = url() + "/token";
                  res.set_content(boost::json::serialize(m),
                                  "application/json");
                });
    server_.Get("/jwks", [this](const httplib::Request&,
                                httplib::Response& res) {
      ++jwks_fetches_;
      if (auto delay = jwks_delay_ms_.load(); delay > 0)
        std::this_thread::sleep_for(std::chrono::milliseconds{delay});
      if (auto age = max_age_s_.load(); age >= 0)
        res.set_header("Cache-Control",
                       "public, max-age=" + std::to_string(age));
      std::lock_guard<std::mutex> guard{mutex_};
      boost::json::array keys;
      for (const auto& [kid, k] : keys_)
        if (k.published)
          keys.push_back(k.jwk);
      if (oversized_jwks_)
        keys.push_back(boost::json::object{
          {"kid", "padding"}, {"kty", "oct"}, {"k", std::string(300000, 'A')}});
      res.set_content(boost::json::serialize(boost::json::object{
                        {"keys", std::move(keys)}}),
                      "application/json");
    });
    port_ = server_.bind_to_any_port("127.0.0.1");
    thread_ = std::thread{[this] { server_.listen_after_bind(); }};
  }

  ~test_issuer() {
    server_.stop();
    thread_.join();
  }

  std::string url() const {
    return "http://127.0.0.1:" + std::to_string(port_);
  }

  int jwks_fetches() const {
    return jwks_fetches_.load();
  }

  /// Generates a key ("RS256" or "ES256") under `kid`; published in the
  /// JWKS unless told otherwise.
  void add_key(const std::string& kid, const std::string& alg,
               bool published = true) {
    EVP_PKEY* pkey = alg == "RS256" ? EVP_RSA_gen(2048) : EVP_EC_gen("P-256");
    boost::json::object jwk{{"kid", kid}, {"use", "sig"}, {"alg", alg}};
    if (alg == "RS256") {
      jwk["kty"] = "RSA";
      jwk["n"] = bn_param(pkey, OSSL_PKEY_PARAM_RSA_N);
      jwk["e"] = bn_param(pkey, OSSL_PKEY_PARAM_RSA_E);
    } else {
      unsigned char point[65];
      std::size_t length = 0;
      EVP_PKEY_get_octet_string_param(pkey, OSSL_PKEY_PARAM_PUB_KEY, point,
                                      sizeof point, &length);
      jwk["kty"] = "EC";
      jwk["crv"] = "P-256";
      jwk["x"] = oauth::base64url_encode(
        std::string_view{reinterpret_cast<char*>(point + 1), 32});
      jwk["y"] = oauth::base64url_encode(
        std::string_view{reinterpret_cast<char*>(point + 33), 32});
    }
    std::lock_guard<std::mutex> guard{mutex_};
    auto& k = keys_[kid];
    k.pkey.reset(pkey);
    k.alg = alg;
    k.jwk = std::move(jwk);
    k.published = published;
  }

  void publish(const std::string& kid) {
    std::lock_guard<std::mutex> guard{mutex_};
    keys_.at(kid).published = true;
  }

  void oversize_jwks() {
    oversized_jwks_ = true;
  }

  /// The key set is withdrawn from the JWKS.
  void withdraw(const std::string& kid) {
    std::lock_guard<std::mutex> guard{mutex_};
    keys_.at(kid).published = false;
  }

  /// The JWKS answers after `ms` (a slow issuer).
  void delay_jwks(int ms) {
    jwks_delay_ms_ = ms;
  }

  /// The JWKS says Cache-Control max-age=`seconds` (-1: no header).
  void jwks_max_age(int seconds) {
    max_age_s_ = seconds;
  }

  /// A JWT signed by `kid` with `claims`; `alg` overrides the header's
  /// algorithm (the signature is still the key's own).
  std::string sign(const std::string& kid, const boost::json::object& claims,
                   std::string alg = {}, bool name_kid = true) {
    std::lock_guard<std::mutex> guard{mutex_};
    const auto& k = keys_.at(kid);
    if (alg.empty())
      alg = k.alg;
    boost::json::object header{{"alg", alg}, {"typ", "at+jwt"}};
    if (name_kid)
      header["kid"] = kid;
    auto signing_input
      = oauth::base64url_encode(boost::json::serialize(header)) + "."
        + oauth::base64url_encode(boost::json::serialize(claims));
    auto* ctx = EVP_MD_CTX_new();
    EVP_DigestSignInit(ctx, nullptr, EVP_sha256(), nullptr, k.pkey.get());
    std::size_t length = 0;
    EVP_DigestSign(ctx, nullptr, &length,
                   reinterpret_cast<const unsigned char*>(signing_input.data()),
                   signing_input.size());
    std::string signature(length, '\0');
    EVP_DigestSign(ctx, reinterpret_cast<unsigned char*>(signature.data()),
                   &length,
                   reinterpret_cast<const unsigned char*>(signing_input.data()),
                   signing_input.size());
    EVP_MD_CTX_free(ctx);
    signature.resize(length);
    if (k.alg == "ES256") {
      // DER → the JWS form r||s.
      const auto* der
        = reinterpret_cast<const unsigned char*>(signature.data());
      auto* sig = d2i_ECDSA_SIG(nullptr, &der,
                                static_cast<long>(signature.size()));
      unsigned char raw[64];
      BN_bn2binpad(ECDSA_SIG_get0_r(sig), raw, 32);
      BN_bn2binpad(ECDSA_SIG_get0_s(sig), raw + 32, 32);
      ECDSA_SIG_free(sig);
      signature.assign(reinterpret_cast<char*>(raw), 64);
    }
    return signing_input + "." + oauth::base64url_encode(signature);
  }

  /// An unsigned token (`alg: none`).
  static std::string unsigned_token(const boost::json::object& claims) {
    boost::json::object header{{"alg", "none"}, {"typ", "JWT"}};
    return oauth::base64url_encode(boost::json::serialize(header)) + "."
           + oauth::base64url_encode(boost::json::serialize(claims)) + ".";
  }

private:
  static std::string bn_param(EVP_PKEY* pkey, const char* name) {
    BIGNUM* n = nullptr;
    EVP_PKEY_get_bn_param(pkey, name, &n);
    std::string bytes(static_cast<std::size_t>(BN_num_bytes(n)), '\0');
    BN_bn2bin(n, reinterpret_cast<unsigned char*>(bytes.data()));
    BN_free(n);
    return oauth::base64url_encode(bytes);
  }

  struct pkey_free {
    void operator()(EVP_PKEY* k) const {
      EVP_PKEY_free(k);
    }
  };
  struct key {
    std::unique_ptr<EVP_PKEY, pkey_free> pkey;
    std::string alg;
    boost::json::object jwk;
    bool published = true;
  };

  httplib::Server server_;
  int port_ = 0;
  std::thread thread_;
  std::mutex mutex_;
  std::map<std::string, key> keys_;
  std::atomic<int> jwks_fetches_{0};
  std::atomic<bool> oversized_jwks_{false};
  std::atomic<int> jwks_delay_ms_{0};
  std::atomic<int> max_age_s_{-1};
};

} // namespace transitd::testing
