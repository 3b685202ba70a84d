/** Bundled offline weather data for the demo's `get-weather` tool (°C). */
export const WEATHER: Record<string, { forecast: string; temperatureC: number }> = {
  paris: { forecast: 'sunny', temperatureC: 21 },
  london: { forecast: 'light rain', temperatureC: 14 },
  berlin: { forecast: 'cloudy', temperatureC: 16 },
  tokyo: { forecast: 'humid and clear', temperatureC: 27 },
  'new york': { forecast: 'windy', temperatureC: 18 },
  sydney: { forecast: 'showers', temperatureC: 19 },
  madrid: { forecast: 'hot and dry', temperatureC: 31 },
};
