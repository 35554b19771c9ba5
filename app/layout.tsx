import { connection } from "next/server";
import type { ReactNode } from "react";

export const metadata = { title: "MA2H Hub" };

export default async function RootLayout({ children }: { children: ReactNode }) {
  // Every page is rendered per request: its scripts carry that request's CSP nonce
  // (server/page-headers.ts), which a page prerendered at build time could not.
  await connection();
  return (
    <html lang="en">
      <body style={{ fontFamily: "system-ui, sans-serif", margin: "2rem" }}>{children}</body>
    </html>
  );
}
