import { defineConfig } from 'vitepress'

export default defineConfig({
  title: 'PicoMQ',
  description: 'A durable, real-time stream server whose records live in object storage.',
  srcDir: 'pages',
  cleanUrls: true,
  themeConfig: {
    nav: [{ text: 'Docs', link: '/docs/' }],
    sidebar: {
      '/docs/': [
        {
          text: 'Introduction',
          items: [
            { text: 'Overview', link: '/docs/' },
            { text: 'Building and testing', link: '/docs/development' }
          ]
        },
        {
          text: 'The engine (s3stream)',
          items: [
            { text: 'Formats and storage', link: '/docs/engine' },
            { text: 'Object storage URIs', link: '/docs/object-storage' }
          ]
        }
      ]
    }
  }
})
