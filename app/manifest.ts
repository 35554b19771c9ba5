import type { MetadataRoute } from "next";

/**
 * The web app manifest (`/manifest.webmanifest`, docs/inbox.md "On your phone"): the inbox installs
 * as an app of its own — it opens on the inbox, standalone, with the Hub's mark. Its service worker
 * (public/sw.js) keeps the app shell for offline starts.
 */
export default function manifest(): MetadataRoute.Manifest {
  return {
    name: "MA2H Hub",
    short_name: "MA2H",
    description: "Your MA2H inbox: answer your agents' asks",
    id: "/inbox",
    start_url: "/inbox",
    scope: "/",
    display: "standalone",
    background_color: "#ffffff",
    theme_color: "#2456c9",
    icons: [
      { src: "/icons/icon-192.png", sizes: "192x192", type: "image/png", purpose: "any" },
      { src: "/icons/icon-512.png", sizes: "512x512", type: "image/png", purpose: "any" },
      { src: "/icons/maskable-512.png", sizes: "512x512", type: "image/png", purpose: "maskable" },
    ],
  };
}
