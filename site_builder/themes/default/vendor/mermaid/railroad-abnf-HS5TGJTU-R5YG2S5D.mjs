import{a as r,b as o}from"./chunk-RT4MAWR3.mjs";import"./chunk-ZS6VBONO.mjs";import"./chunk-AQ6EADP3.mjs";export{r as RailroadAbnfModule,o as createRailroadAbnfServices};
