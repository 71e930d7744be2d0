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
            { text: 'Quick start', link: '/docs/quick-start' },
            { text: 'The pico command line', link: '/docs/cli' },
            { text: 'Operating a node', link: '/docs/operating' },
            { text: 'Deploy', link: '/docs/deploy' },
            { text: 'Security', link: '/docs/security' },
            { text: 'PicoMQ inside Postgres', link: '/docs/extension' },
            { text: 'Run a cluster', link: '/docs/cluster' },
            { text: 'Admin API and dashboard', link: '/docs/admin' },
            { text: 'Transfers, drain and rebalance', link: '/docs/transfers' },
            { text: 'Benchmarks', link: '/docs/benchmarks' },
            { text: 'Building and testing', link: '/docs/development' }
          ]
        },
        {
          text: 'Protocols',
          items: [
            { text: 'The Pico protocol', link: '/docs/pico-protocol' },
            { text: 'Durable Streams', link: '/docs/durable-streams' },
            { text: 'HTTP API (OpenAPI)', link: '/docs/http-api' },
            { text: 'Java client SDK', link: '/docs/client-sdk' }
          ]
        },
        {
          text: 'The engine (s3stream)',
          items: [
            { text: 'The engine', link: '/docs/engine' },
            { text: 'Object storage URIs', link: '/docs/object-storage' },
            { text: 'Choosing a WAL', link: '/docs/wal' }
          ]
        },
        {
          text: 'The metadata plane',
          items: [
            { text: 'Commands and state', link: '/docs/metadata' },
            { text: 'The SQL command log', link: '/docs/sql-log' },
            { text: 'Failure and failover', link: '/docs/failover' }
          ]
        }
      ]
    }
  }
})
