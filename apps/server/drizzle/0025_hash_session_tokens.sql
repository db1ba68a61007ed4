-- Issue 25, security 17 (decision 043): the session table keeps SHA-256 (hex) of each token,
-- as apps/server/src/accounts/session-token.ts writes and looks them up from now on. The
-- tokens stored in the clear before are hashed in place: nobody is signed out, and a backup
-- taken from now on holds no usable session. (Better Auth's tokens are 32 letters and digits;
-- a 64-hex-digit value is already a hash.)
UPDATE "session" SET "token" = encode(sha256(convert_to("token", 'UTF8')), 'hex') WHERE "token" !~ '^[0-9a-f]{64}$';
