"use client";
import { signIn } from "next-auth/react";

export function SignInButton({ id, name, callbackUrl }: { id: string; name: string; callbackUrl: string }) {
  return (
    <p>
      <button
        type="button"
        data-testid={`signin-${id}`}
        onClick={() => void signIn(id, { callbackUrl })}
        style={{ fontSize: "1.1rem", padding: "0.6rem 1rem" }}
      >
        Sign in with {name}
      </button>
    </p>
  );
}
