-- An account whose password an admin chose (a new account, a reset, npm run admin:create) is marked
-- until its owner changes the password: signing in with it leads to the password page first.
ALTER TABLE "users" ADD COLUMN "password_temporary" BOOLEAN NOT NULL DEFAULT false;
