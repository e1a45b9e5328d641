// Original file: pincer/v1/process.proto


export interface ProcessListRequest {
}

export interface ProcessListRequest__Output {
}
