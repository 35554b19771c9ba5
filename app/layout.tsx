import type { Metadata, Viewport } from "next";
import { connection } from "next/server";
import type { ReactNode } from "react";
import "./root.css";

export const metadata: Metadata = {
  title: "MA2H Hub",
  // The installed inbox (docs/inbox.md "On your phone"): app/manifest.ts is linked by Next itself.
  appleWebApp: { capable: true, title: "MA2H", statusBarStyle: "default" },
  icons: { apple: "/icons/apple-touch-icon.png" },
};

export const viewport: Viewport = { width: "device-width", initialScale: 1, themeColor: "#2456c9" };

export default async function RootLayout({ children }: { children: ReactNode }) {
  // Every page is rendered per request: its scripts carry that request's CSP nonce
  // (server/page-headers.ts), which a page prerendered at build time could not.
  await connection();
  return (
    <html lang="en">
      <body>{children}</body>
    </html>
  );
}
